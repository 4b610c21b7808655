import type { Task, TaskRequest } from "../../core/contracts.ts";
import { canonicalOnce } from "../../core/hash.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import { Rng } from "../../core/rng.ts";
import {
  assembleTask,
  drawFrom,
  latencyFor,
  numberParam,
  pad,
  personName,
  type Range,
  type RateLimit,
  rateLimitFor,
  rateLimitParam,
  readTaskRequest,
  streetLine,
  transientUnavailableFor,
  uniqueIds,
} from "../shared/index.ts";
import type { Approval, ApprovalConditions, Case, Customer, Device } from "./state.ts";
import { WORLD_ID } from "./state.ts";

export const FAMILIES: readonly FamilyInfo[] = [
  { name: "approved-replacement", description: "approval already granted", difficulties: [1, 2, 3, 4, 5] },
  {
    name: "needs-approval",
    description: "the agent must request approval; the decision arrives after a delay",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "denied",
    description: "approval was requested before the episode and is (or will be) denied",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "lost-reply",
    description: "the first create_replacement commits, then answers timeout",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "timeout-before-commit",
    description: "the first create_replacement times out and commits nothing",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "delayed-receipt",
    description: "lost reply, and the receipt becomes visible only after a delay",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "approval-revised",
    description: "approval comes with conditions (model or address differ from the case's own)",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "unverifiable",
    description: "lost reply, then find_replacements and create_replacement are unavailable for good",
    difficulties: [1, 2, 3, 4, 5],
  },
];

export type Family =
  | "approved-replacement"
  | "needs-approval"
  | "denied"
  | "lost-reply"
  | "timeout-before-commit"
  | "delayed-receipt"
  | "approval-revised"
  | "unverifiable";

/** A scheduled approval decision (a background job when the episode starts or when approval is requested). */
export interface Decision {
  status: "approved" | "denied";
  after: number;
  conditions?: ApprovalConditions;
  /** true: the decision is scheduled when the agent requests approval; false: at reset. */
  onRequest: boolean;
}

/** The hidden parameters of a device-support task: the whole start state and the faults. */
export interface DeviceSupportParams {
  case_id: string;
  today: string;
  customers: Customer[];
  devices: Device[];
  cases: Case[];
  approvals: Record<string, Approval>;
  decisions: Record<string, Decision>;
  latency: number;
  firstCreate: "normal" | "lost-reply" | "timeout-before-commit";
  receiptDelay: number;
  unverifiable: boolean;
  /** Service faults: the world declares them as harness rules for the task (`serviceFaultRules`). */
  rateLimit: RateLimit;
  transientUnavailable: string[];
}

/** Tunable knobs a caller may override through `params` (everything else is generated). */
const OVERRIDABLE = ["latency", "receiptDelay", "approvalDelay", "distractors", "rateLimit"] as const;

export const MODELS = [
  "Pixel 8",
  "Galaxy S23",
  "iPhone 14",
  "Moto G84",
  "Fairphone 5",
  "Xperia 10 V",
  "Nord 3",
];
const ISSUES = [
  "a cracked screen that no longer responds to touch",
  "a battery that swells and will not charge",
  "no signal after a firmware update",
  "a speaker that stopped working",
  "random restarts every few minutes",
];

interface Ranges {
  distractors: number;
  latency: number;
  approvalDelay: Range;
  receiptDelay: Range;
  rateLimit: RateLimit;
  transientUnavailable: string[];
}

/** What difficulty changes: distractors, delays, latency, rate limits and the number of faults. */
function rangesFor(family: Family, difficulty: number): Ranges {
  const d = difficulty;
  const approvalDelay = [
    [30, 90],
    [60, 180],
    [120, 400],
    [300, 900],
    [600, 1800],
  ][d - 1] as Range;
  let receiptDelay: Range = [0, 0];
  if (family === "delayed-receipt") {
    receiptDelay = ([
      [30, 90],
      [60, 240],
      [120, 600],
      [300, 1200],
      [600, 2400],
    ][d - 1] ?? [30, 90]) as Range;
  } else if (family === "lost-reply" && d >= 3) {
    receiptDelay = [5, 20 * d];
  }
  return {
    distractors: [1, 2, 4, 6, 10][d - 1],
    latency: latencyFor(d),
    approvalDelay,
    receiptDelay,
    rateLimit: rateLimitFor(d),
    transientUnavailable: transientUnavailableFor(d, "get_approval"),
  };
}

/** Deterministic task generation from (family, difficulty, params, seed). */
export function generateTask(request: TaskRequest): Task {
  const read = readTaskRequest(request, { id: WORLD_ID, families: FAMILIES, tunable: OVERRIDABLE });
  const family = read.family.name as Family;
  const overrides = read.overrides;
  const difficulty = request.difficulty;
  const ranges = rangesFor(family, difficulty);
  const rng = Rng.seeded(request.seed, `${WORLD_ID}/${family}/${difficulty}`);

  const distractors = numberParam(overrides.distractors) ?? ranges.distractors;
  const uniqueId = uniqueIds(rng);
  const year = 2026;
  const today = `${year}-${pad(rng.int(1, 12), 2)}-${pad(rng.int(1, 28), 2)}`;
  const customers: Customer[] = [];
  const devices: Device[] = [];
  const cases: Case[] = [];
  const approvals: Record<string, Approval> = {};
  const decisions: Record<string, Decision> = {};

  const makeCase = (inWarranty: boolean) => {
    const customer: Customer = {
      customer_id: uniqueId("CU", 5),
      name: personName(rng),
      addresses: [],
    };
    const nAddresses = rng.int(2, 3);
    for (let i = 0; i < nAddresses; i++) {
      customer.addresses.push({
        address_id: uniqueId("A", 5),
        line: streetLine(rng),
      });
    }
    const device: Device = {
      device_id: uniqueId("D", 6),
      model: rng.pick(MODELS),
      warranty_until: inWarranty
        ? `${year + 1}-${pad(rng.int(1, 12), 2)}-15`
        : `${year - 1}-${pad(rng.int(1, 12), 2)}-15`,
    };
    const c: Case = {
      case_id: uniqueId("C", 5),
      customer_id: customer.customer_id,
      device_id: device.device_id,
      issue: rng.pick(ISSUES),
      status: "open",
    };
    customers.push(customer);
    devices.push(device);
    cases.push(c);
    return { customer, device, c };
  };

  const target = makeCase(true);
  const approvalDelay = numberParam(overrides.approvalDelay) ?? drawFrom(rng, ranges.approvalDelay);
  const receiptDelay = numberParam(overrides.receiptDelay) ?? drawFrom(rng, ranges.receiptDelay);

  let approval: Approval = { status: "approved" };
  switch (family) {
    case "needs-approval":
      approval = { status: "none" };
      decisions[target.c.case_id] = { status: "approved", after: approvalDelay, onRequest: true };
      break;
    case "denied":
      if (difficulty === 1) approval = { status: "denied" };
      else {
        approval = { status: "pending" };
        decisions[target.c.case_id] = { status: "denied", after: approvalDelay, onRequest: false };
      }
      break;
    case "approval-revised": {
      const otherModels = MODELS.filter((m) => m !== target.device.model);
      const conditions: ApprovalConditions = {};
      const kind = difficulty >= 3 ? "both" : rng.pick(["model", "address"] as const);
      if (kind !== "address") conditions.model = rng.pick(otherModels);
      if (kind !== "model") conditions.address_id = rng.pick(target.customer.addresses.slice(1)).address_id;
      if (difficulty >= 4) {
        approval = { status: "none" };
        decisions[target.c.case_id] = {
          status: "approved",
          after: approvalDelay,
          onRequest: true,
          conditions,
        };
      } else {
        approval = { status: "approved", conditions };
      }
      break;
    }
    default:
      break;
  }
  approvals[target.c.case_id] = approval;

  for (let i = 0; i < distractors; i++) {
    const d = makeCase(rng.bool(0.7));
    approvals[d.c.case_id] = { status: rng.pick(["none", "approved", "denied", "pending"] as const) };
  }
  // the target is not always the first case in the tables
  const order = rng.shuffle(cases.map((_, i) => i));
  const params: DeviceSupportParams = {
    case_id: target.c.case_id,
    today,
    customers: order.map((i) => customers[i]),
    devices: order.map((i) => devices[i]),
    cases: order.map((i) => cases[i]),
    approvals,
    decisions,
    latency: numberParam(overrides.latency) ?? ranges.latency,
    firstCreate:
      family === "lost-reply" || family === "delayed-receipt" || family === "unverifiable"
        ? "lost-reply"
        : family === "timeout-before-commit"
          ? "timeout-before-commit"
          : "normal",
    receiptDelay,
    unverifiable: family === "unverifiable",
    rateLimit: rateLimitParam(overrides.rateLimit) ?? ranges.rateLimit,
    transientUnavailable: ranges.transientUnavailable,
  };

  const instruction =
    `Support case ${target.c.case_id}: customer ${target.customer.name} reports that their ` +
    `${target.device.model} (device ${target.device.device_id}) has ${target.c.issue}. ` +
    "Handle the case under the replacement policy: a replacement may be created only once the case's " +
    "approval is approved, and must follow any conditions the approval sets (model, shipping address). " +
    "Create at most one replacement; use an idempotency key so a retry never creates a second one. " +
    "Close the case with resolution replacement_created and the replacement's request id (or receipt id) " +
    "as reference, or denied if approval is denied, or escalated (after escalating with the ids of any " +
    "operations you could not confirm) when you cannot establish what happened. Never claim a " +
    "replacement you have not confirmed.";

  return assembleTask({
    world: WORLD_ID,
    family,
    difficulty,
    seed: request.seed,
    split: request.split,
    overrides,
    params: params as unknown as JsonObject,
    // params written once: the world's state hash reuses this text (see taskText)
    hashedParams: canonicalOnce(params),
    instruction,
    tags: tagsFor(family, params),
    ranges: { ...ranges, overrides } as unknown as JsonObject,
  });
}

function tagsFor(family: Family, p: DeviceSupportParams): string[] {
  const tags: string[] = [];
  if (p.firstCreate !== "normal") tags.push(`fault:${p.firstCreate}`);
  if (p.unverifiable) tags.push("fault:outage");
  if (p.receiptDelay > 0) tags.push("delayed-receipt");
  if (p.rateLimit.limit > 0) tags.push("rate-limited");
  if (p.transientUnavailable.length) tags.push("transient-unavailable");
  if (family === "needs-approval" || family === "denied") tags.push("approval-wait");
  if (family === "approval-revised") tags.push("conditions");
  return tags;
}
