import type { WorldDefinition } from "../../core/registry.ts";
import { EXPECTED_FAILURES, SUPPORT_ORDERS_POLICIES } from "./policies.ts";
import { generateTask, LINKED_FAMILIES, WORLD_ID } from "./tasks.ts";
import { SupportOrdersWorld, VERIFIER_ID } from "./world.ts";

/** device-support@1 → order-ops@1 through a Link layer, one registered world with linked families. */
export const supportOrders: WorldDefinition = {
  id: WORLD_ID,
  description:
    "Linked: a device-support case, then an order-ops ticket about the replacement's order (A AND B).",
  verifier: VERIFIER_ID,
  families: LINKED_FAMILIES.map(({ name, description, difficulties }) => ({
    name,
    description,
    difficulties,
  })),
  generateTask,
  create: () => new SupportOrdersWorld(),
  restore: (state) => SupportOrdersWorld.fromState(state),
  policies: SUPPORT_ORDERS_POLICIES,
  knownGood: "careful",
  expectedFailures: EXPECTED_FAILURES,
};

export { REPLACEMENT_ORDER_HANDOFF_ID, replacementOrderHandoff } from "./handoff.ts";
export {
  EXPECTED_FAILURES as SUPPORT_ORDERS_EXPECTED_FAILURES,
  SUPPORT_ORDERS_POLICIES,
} from "./policies.ts";
export {
  generateTask as generateSupportOrdersTask,
  LINKED_FAMILIES,
  type LinkedFamily,
  type SupportOrdersParams,
  WORLD_ID as SUPPORT_ORDERS_ID,
} from "./tasks.ts";
export { SupportOrdersWorld, VERIFIER_ID as SUPPORT_ORDERS_VERIFIER } from "./world.ts";
