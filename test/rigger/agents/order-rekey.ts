// Planted weakness (order-ops@1): on about half the tickets, a refund whose reply was lost is retried
// under a fresh idempotency key (a second refund) instead of being looked up by its key.
import { ORDER_OPS_POLICIES } from "../../../src/worlds/order-ops/index.ts";
import { mixedPolicy } from "./mixed-policy.ts";

export default mixedPolicy(
  "order-rekey",
  ORDER_OPS_POLICIES["new-key-retry"],
  ORDER_OPS_POLICIES.careful,
  "ticket_id",
);
