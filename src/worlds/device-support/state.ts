import type { Task, ToolResult } from "../../core/contracts.ts";
import type { Effect } from "../../core/effect-log.ts";
import type { JsonObject } from "../../core/json.ts";
import type { RngState } from "../../core/rng.ts";
import type { SchedulerState } from "../../core/scheduler.ts";

export const WORLD_ID = "device-support@1";
export const VERIFIER_ID = "verify.device-support@1";

export interface Address {
  address_id: string;
  line: string;
}
export interface Customer {
  customer_id: string;
  name: string;
  addresses: Address[];
}
export interface Device {
  device_id: string;
  model: string;
  warranty_until: string;
}
export type CaseStatus = "open" | "closed";
export interface Case {
  case_id: string;
  customer_id: string;
  device_id: string;
  issue: string;
  status: CaseStatus;
}
export type ApprovalStatus = "none" | "pending" | "approved" | "denied";
export interface ApprovalConditions {
  model?: string;
  address_id?: string;
}
export interface Approval {
  status: ApprovalStatus;
  conditions?: ApprovalConditions;
}
export interface Replacement {
  request_id: string;
  case_id: string;
  model: string;
  address_id: string;
  idempotency_key: string;
  committed_at: number;
}
export interface Receipt {
  receipt_id: string;
  request_id: string;
  idempotency_key: string;
  visible_at: number;
  visible: boolean;
}
export interface Message {
  message_id: string;
  case_id: string;
  text: string;
  t: number;
}
export interface Escalation {
  ticket_id: string;
  case_id: string;
  reason: string;
  operation_ids: string[];
  t: number;
}
export type Resolution = "replacement_created" | "denied" | "escalated" | "no_action";
export interface Closure {
  case_id: string;
  resolution: Resolution;
  reference?: string;
  step: number;
  t: number;
}

/** The entities of the world: what the tools read and write. */
export interface Entities {
  today: string;
  customers: Customer[];
  devices: Device[];
  cases: Case[];
  approvals: Record<string, Approval>;
  replacements: Replacement[];
  receipts: Receipt[];
  messages: Message[];
  escalations: Escalation[];
  closure?: Closure;
}

/** How the service misbehaves in this episode (from the task's params; the agent never sees it). */
export interface FaultState {
  /** What the first authorised, valid create_replacement does. */
  firstCreate: "normal" | "lost-reply" | "timeout-before-commit";
  /** Seconds until the receipt of a replacement becomes visible to find_replacements. */
  receiptDelay: number;
  /** After the lost reply, find_replacements and create_replacement answer `unavailable`. */
  unverifiableAfterLoss: boolean;
  /** Whether the first-create fault has happened. */
  firstCreateDone: boolean;
  /** Set when the lost reply happened and the service is down from then on. */
  outage: boolean;
  /** Read tools limited to `limit` calls per `window` seconds (0 = no limit). */
  rateLimit: { limit: number; window: number; calls: number[] };
  /** Tools whose first call answers `unavailable` (a transient fault). */
  transientUnavailable: string[];
}

/** One tool call as the world saw it, with the result the agent received. */
export interface TraceEntry {
  step: number;
  t: number;
  tool: string;
  callId: string;
  args: JsonObject;
  result: ToolResult;
}

export interface DeviceSupportState {
  task: Task;
  seed: number;
  episode: string;
  now: number;
  ended: boolean;
  latency: number;
  entities: Entities;
  faults: FaultState;
  counters: { request: number; receipt: number; message: number; ticket: number };
  scheduler: SchedulerState;
  rng: RngState;
  effects: Effect[];
  trace: TraceEntry[];
  /** Jobs that fired for an episode other than the current one (a leak the runner must report). */
  strayJobs: number;
}
