import type { WorldDefinition } from "../../core/registry.ts";
import { EXPECTED_FAILURES, ORDER_OPS_POLICIES } from "./policies.ts";
import { VERIFIER_ID, WORLD_ID } from "./state.ts";
import { FAMILIES, generateTask } from "./tasks.ts";
import { OrderOpsWorld } from "./world.ts";

export const orderOps: WorldDefinition = {
  id: WORLD_ID,
  description:
    "Orders, shipments, addresses and refunds: change an address before (or after) it ships, refund once.",
  verifier: VERIFIER_ID,
  families: [...FAMILIES],
  generateTask,
  create: () => new OrderOpsWorld(),
  restore: (state) => OrderOpsWorld.fromState(state),
  policies: ORDER_OPS_POLICIES,
  knownGood: "careful",
  expectedFailures: EXPECTED_FAILURES,
  // what the world has planned (scheduled shipping, the first refund's fault, refund delays, outages):
  // the audit's hidden check looks for these values, in any encoding, in every observation
  hiddenParams: ["jobs", "firstRefund", "refundDelay", "transientUnavailable"],
};

export {
  EXPECTED_FAILURES as ORDER_OPS_EXPECTED_FAILURES,
  ORDER_OPS_POLICIES,
  type OrderOpsFlaw,
  orderOpsPolicy,
} from "./policies.ts";
export type { OrderOpsState, TraceEntry as OrderOpsTraceEntry } from "./state.ts";
export { VERIFIER_ID as ORDER_OPS_VERIFIER, WORLD_ID as ORDER_OPS_ID } from "./state.ts";
export type { LinkParams, OrderOpsParams } from "./tasks.ts";
export { FAMILIES as ORDER_OPS_FAMILIES, generateTask as generateOrderOpsTask } from "./tasks.ts";
export { verifyOrderOps } from "./verifier.ts";
export { initialState as orderOpsInitialState, ORDER_OPS_TOOLS, OrderOpsWorld } from "./world.ts";
