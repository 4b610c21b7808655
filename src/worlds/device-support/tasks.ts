import type { Task, TaskRequest } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import { canonicalOnce, hashJson } from "../../core/hash.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import { Rng } from "../../core/rng.ts";
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
  rateLimit: { limit: number; window: number };
  transientUnavailable: string[];
}

/** Tunable knobs a caller may override through `params` (everything else is generated). */
const OVERRIDABLE = ["latency", "receiptDelay", "approvalDelay", "distractors", "rateLimit"] as const;

const FIRST_NAMES = [
  "Ana",
  "Ben",
  "Chen",
  "Dara",
  "Eli",
  "Fatima",
  "Goran",
  "Hana",
  "Ivo",
  "Jun",
  "Kemal",
  "Lena",
];
const LAST_NAMES = [
  "Alvarez",
  "Brook",
  "Costa",
  "Dumont",
  "Eriksen",
  "Fischer",
  "Gupta",
  "Hale",
  "Ito",
  "Jovanovic",
];
const MODELS = ["Pixel 8", "Galaxy S23", "iPhone 14", "Moto G84", "Fairphone 5", "Xperia 10 V", "Nord 3"];
const STREETS = ["Elm St", "Harbour Rd", "Mill Lane", "Station Ave", "Kingsway", "Rue Verte", "Oak Court"];
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
  approvalDelay: [number, number];
  receiptDelay: [number, number];
  rateLimit: { limit: number; window: number };
  transientUnavailable: string[];
}

/** What difficulty changes: distractors, delays, latency, rate limits and the number of faults. */
function rangesFor(family: Family, difficulty: number): Ranges {
  const d = difficulty;
  const approvalDelay: [number, number] = [
    [30, 90],
    [60, 180],
    [120, 400],
    [300, 900],
    [600, 1800],
  ][d - 1] as [number, number];
  let receiptDelay: [number, number] = [0, 0];
  if (family === "delayed-receipt") {
    receiptDelay = ([
      [30, 90],
      [60, 240],
      [120, 600],
      [300, 1200],
      [600, 2400],
    ][d - 1] ?? [30, 90]) as [number, number];
  } else if (family === "lost-reply" && d >= 3) {
    receiptDelay = [5, 20 * d];
  }
  return {
    distractors: [1, 2, 4, 6, 10][d - 1],
    latency: d <= 2 ? 1 : d === 3 ? 2 : 3,
    approvalDelay,
    receiptDelay,
    rateLimit: d >= 4 ? { limit: d === 4 ? 4 : 3, window: 60 } : { limit: 0, window: 60 },
    transientUnavailable: d >= 5 ? ["get_approval"] : [],
  };
}

function familyOf(name: string): Family {
  if (!FAMILIES.some((f) => f.name === name)) {
    throw configError(
      "unknown_family",
      `unknown family "${name}" for ${WORLD_ID} (known: ${FAMILIES.map((f) => f.name).join(", ")})`,
    );
  }
  return name as Family;
}

function checkOverrides(params: JsonObject): void {
  for (const key of Object.keys(params)) {
    if (!(OVERRIDABLE as readonly string[]).includes(key)) {
      throw configError(
        "unknown_param",
        `unknown task param "${key}" for ${WORLD_ID} (tunable: ${OVERRIDABLE.join(", ")})`,
      );
    }
  }
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Deterministic task generation from (family, difficulty, params, seed). */
export function generateTask(request: TaskRequest): Task {
  const family = familyOf(request.family);
  const difficulty = request.difficulty;
  if (!Number.isInteger(difficulty) || difficulty < 1 || difficulty > 5) {
    throw configError("bad_difficulty", `difficulty must be an integer 1..5, got ${difficulty}`);
  }
  if (!Number.isSafeInteger(request.seed))
    throw configError("bad_seed", `seed must be an integer, got ${request.seed}`);
  const overrides = request.params ?? {};
  checkOverrides(overrides);
  const ranges = rangesFor(family, difficulty);
  const rng = Rng.seeded(request.seed, `${WORLD_ID}/${family}/${difficulty}`);

  const distractors = typeof overrides.distractors === "number" ? overrides.distractors : ranges.distractors;
  const usedIds = new Set<string>();
  const uniqueId = (prefix: string, digits: number) => {
    for (;;) {
      const id = `${prefix}-${pad(rng.int(0, 10 ** digits - 1), digits)}`;
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
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
      name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
      addresses: [],
    };
    const nAddresses = rng.int(2, 3);
    for (let i = 0; i < nAddresses; i++) {
      customer.addresses.push({
        address_id: uniqueId("A", 5),
        line: `${rng.int(1, 240)} ${rng.pick(STREETS)}`,
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
  const delay = (range: [number, number]) => rng.int(range[0], range[1]);
  const approvalDelay =
    typeof overrides.approvalDelay === "number" ? overrides.approvalDelay : delay(ranges.approvalDelay);
  const receiptDelay =
    typeof overrides.receiptDelay === "number" ? overrides.receiptDelay : delay(ranges.receiptDelay);

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
    latency: typeof overrides.latency === "number" ? overrides.latency : ranges.latency,
    firstCreate:
      family === "lost-reply" || family === "delayed-receipt" || family === "unverifiable"
        ? "lost-reply"
        : family === "timeout-before-commit"
          ? "timeout-before-commit"
          : "normal",
    receiptDelay,
    unverifiable: family === "unverifiable",
    rateLimit: isRateLimit(overrides.rateLimit) ? overrides.rateLimit : ranges.rateLimit,
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

  const content = {
    world: WORLD_ID,
    family,
    difficulty,
    seed: request.seed,
    params: params as unknown as JsonObject,
    instruction,
  };
  // params written once: the world's state hash reuses this text (see taskText in world.ts)
  const contentHash = hashJson({ ...content, params: canonicalOnce(params) });
  const overridesPart = Object.keys(overrides).length ? `/p${hashJson(overrides, 8)}` : "";
  return {
    id: `${WORLD_ID}/${family}/d${difficulty}/s${request.seed}${overridesPart}`,
    world: WORLD_ID,
    family,
    difficulty,
    tags: tagsFor(family, params),
    params: params as unknown as JsonObject,
    split: request.split ?? "regression",
    seed: request.seed,
    instruction,
    generator: {
      template: `${WORLD_ID}/${family}@1`,
      ranges: { ...ranges, overrides } as unknown as JsonObject,
      contentHash,
    },
  };
}

function isRateLimit(v: unknown): v is { limit: number; window: number } {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { limit?: unknown }).limit === "number" &&
    typeof (v as { window?: unknown }).window === "number"
  );
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
