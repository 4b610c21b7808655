import type { JsonValue } from "../../core/json.ts";
import type { AdmissibleDeclaration, SeenValues } from "../shared/index.ts";

/** An escalation's operation ids: none, or one id of an operation the agent touched (a key it sent, an order, a shipment). */
function operationIds(seen: SeenValues): JsonValue[] {
  const ids = [
    ...seen.sent("idempotency_key").slice(0, 2),
    ...seen.values("shipment_id").slice(0, 1),
    ...seen.values("order_id").slice(0, 1),
  ];
  return [[], ...[...new Set(ids)].map((id) => [id])];
}

/**
 * order-ops@1's admissible actions: the defaults fill the ids (ticket, order, customer, shipment,
 * address), the external reference, the amount and the reason the ticket asked for, and the keys,
 * from what was seen; a close's reference is a refund, shipment or order id seen; an escalation
 * names no operation or one it touched; its reason and a message are free text.
 */
export const ORDER_OPS_ADMISSIBLE: AdmissibleDeclaration = {
  args: {
    "escalate.reason": { text: "Handing the ticket to a human: see the operation ids." },
    "send_message.text": { text: "We are working on your request and will update you shortly." },
    operation_ids: { build: operationIds },
    reference: { from: ["refund_id", "shipment_id", "order_id"], limit: 3 },
    reason: { from: ["reason"], limit: 2 },
    amount: { from: ["amount"], limit: 2 },
  },
};
