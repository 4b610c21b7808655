import type { ToolWorldState } from "../../core/tool-world.ts";

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

/**
 * How the service behaves in this episode, as the spec defines its task families (from the task's
 * params; the agent never sees it): the first create's lost reply or timeout, the receipt delay, the
 * outage after the loss. The rate limit and transient faults are harness rules the task declares.
 */
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
}

export type { TraceEntry } from "../../core/tool-world.ts";

export interface DeviceSupportState extends ToolWorldState<Entities, FaultState> {
  counters: { request: number; receipt: number; message: number; ticket: number };
}
