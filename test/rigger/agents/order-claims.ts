// Planted weakness (order-ops@1): on about half the tickets, a refund whose reply was lost is closed
// as refunded without ever seeing the refund.
import { ORDER_OPS_POLICIES } from "../../../src/worlds/order-ops/index.ts";
import { mixedPolicy } from "./mixed-policy.ts";

export default mixedPolicy(
  "order-claims",
  ORDER_OPS_POLICIES["claims-success"],
  ORDER_OPS_POLICIES.careful,
  "ticket_id",
);
