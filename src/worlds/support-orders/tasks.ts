import type { Task, TaskRequest } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import { generateDeviceSupportTask } from "../device-support/index.ts";
import { ORDER_OPS_ID } from "../order-ops/index.ts";
import { assembleTask, checkOverrides, findFamily } from "../shared/index.ts";
import { REPLACEMENT_ORDER_HANDOFF_ID } from "./handoff.ts";

export const WORLD_ID = "support-orders@1";

/** A linked family: task A of device-support, then task B of order-ops about the replacement's order. */
export interface LinkedFamily extends FamilyInfo {
  a: string;
  b: string;
}

const ALL = [1, 2, 3, 4, 5];

export const LINKED_FAMILIES: readonly LinkedFamily[] = [
  {
    name: "replacement-address-change",
    description: "approved replacement, then the customer moves it to another address before it ships",
    difficulties: ALL,
    a: "approved-replacement",
    b: "address-change",
  },
  {
    name: "replacement-shipped-redirect",
    description: "approved replacement, then an address change after the replacement already shipped",
    difficulties: ALL,
    a: "approved-replacement",
    b: "address-change-shipped",
  },
  {
    name: "lost-reply-address-change",
    description: "the replacement's reply is lost, then an address change on the order it became",
    difficulties: ALL,
    a: "lost-reply",
    b: "address-change",
  },
  {
    name: "approval-then-refund",
    description: "approval is needed first, then the express fee of the replacement is refunded (reply lost)",
    difficulties: ALL,
    a: "needs-approval",
    b: "refund-lost-reply",
  },
];

/** The params of a linked task: task A in full, and what the Link needs to build task B. */
export interface SupportOrdersParams {
  a: Task;
  link: { world: string; family: string; handoff: string; params?: JsonObject };
}

/** Tunable: the params of task A (device-support) and of task B (order-ops). */
const OVERRIDABLE = ["a", "b"] as const;

/** Deterministic: task A from device-support's generator; B is generated at the hand-off. */
export function generateTask(request: TaskRequest): Task {
  const family = findFamily(WORLD_ID, LINKED_FAMILIES, request.family);
  const overrides = request.params ?? {};
  checkOverrides(WORLD_ID, OVERRIDABLE, overrides);
  const a = generateDeviceSupportTask({
    family: family.a,
    difficulty: request.difficulty,
    seed: request.seed,
    ...(overrides.a ? { params: overrides.a as JsonObject } : {}),
    ...(request.split ? { split: request.split } : {}),
  });
  const params: SupportOrdersParams = {
    a,
    link: {
      world: ORDER_OPS_ID,
      family: family.b,
      handoff: REPLACEMENT_ORDER_HANDOFF_ID,
      ...(overrides.b ? { params: overrides.b as JsonObject } : {}),
    },
  };
  const instruction =
    `${a.instruction} When the case is closed, a follow-up ticket about the replacement's order arrives ` +
    "(in order-ops); handle it too.";
  return assembleTask({
    world: WORLD_ID,
    family: family.name,
    difficulty: request.difficulty,
    seed: request.seed,
    split: request.split,
    overrides,
    params: params as unknown as JsonObject,
    instruction,
    tags: [...a.tags, `link:${family.a}>${family.b}`],
    ranges: { a: a.generator.ranges, b: { family: family.b } },
  });
}
