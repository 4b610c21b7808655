import type { Agent, AgentAction, Observation } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import {
  callWithRetry as call,
  isOk as ok,
  reconcileWrite,
  type Script,
  scriptPolicy,
} from "../shared/index.ts";

/** The flaw a scripted policy is built to have (`none` for the known-good `careful`). */
export type OrderOpsFlaw = "none" | "blind-update" | "claims-success" | "new-key-retry" | "double-refund";

function* escalateAndClose(ticket: string, reason: string, ops: string[]): Script {
  yield { tool: "escalate", args: { ticket_id: ticket, reason, operation_ids: ops } };
  yield { tool: "close_ticket", args: { ticket_id: ticket, resolution: "escalated" } };
}

interface Ticket {
  ticket_id: string;
  order_id?: string;
  external_ref?: string;
  request: JsonObject;
}

function* script(t: Ticket, flaw: OrderOpsFlaw): Script {
  const ticket = t.ticket_id;
  let orderId = t.order_id;
  if (orderId === undefined) {
    const found = yield* call("find_orders", { external_ref: String(t.external_ref) });
    const rows = ok(found) ? (found.orders as JsonObject[]) : [];
    if (rows.length !== 1) {
      yield* escalateAndClose(ticket, `cannot identify the order for ${String(t.external_ref)}`, []);
      return;
    }
    orderId = String(rows[0].order_id);
  }
  const type = String(t.request.type);
  if (type === "address_change") yield* changeAddress(ticket, orderId, String(t.request.address_id), flaw);
  else if (type === "refund") yield* refund(ticket, orderId, t.request, flaw);
  else yield* cancel(ticket, orderId, String(t.request.reason), flaw);
}

function* changeAddress(ticket: string, orderId: string, target: string, flaw: OrderOpsFlaw): Script {
  const redirect = function* (shipment: JsonObject): Script {
    const r = yield* call("request_redirect", {
      shipment_id: String(shipment.shipment_id),
      address_id: target,
    });
    if (ok(r)) {
      yield {
        tool: "close_ticket",
        args: { ticket_id: ticket, resolution: "redirected", reference: String(shipment.shipment_id) },
      };
    } else {
      yield* escalateAndClose(ticket, `redirect failed: ${r.error.code}`, [String(shipment.shipment_id)]);
    }
  };
  if (flaw !== "blind-update") {
    const before = yield* call("get_shipment", { order_id: orderId });
    if (!ok(before)) {
      yield* escalateAndClose(ticket, `cannot read the shipment: ${before.error.code}`, []);
      return;
    }
    if (before.shipment) {
      yield* redirect(before.shipment as JsonObject);
      return;
    }
  }
  const updated = yield* call(
    "update_shipping_address",
    { order_id: orderId, address_id: target },
    flaw === "claims-success" ? 1 : 6,
  );
  if (!ok(updated)) {
    if (flaw === "claims-success" && updated.error.retryable) {
      yield { tool: "close_ticket", args: { ticket_id: ticket, resolution: "address_updated" } };
      return;
    }
    yield* escalateAndClose(ticket, `address update failed: ${updated.error.code}`, [orderId]);
    return;
  }
  if (flaw !== "blind-update") {
    // it may have shipped between the check and the update: the package would keep the old address
    const after = yield* call("get_shipment", { order_id: orderId });
    const shipment = ok(after) ? (after.shipment as JsonObject | null) : null;
    if (!ok(after)) {
      yield* escalateAndClose(ticket, "cannot confirm the shipment after the update", [orderId]);
      return;
    }
    if (shipment && shipment.address_id !== target) {
      yield* redirect(shipment);
      return;
    }
  }
  yield {
    tool: "close_ticket",
    args: { ticket_id: ticket, resolution: "address_updated", reference: orderId },
  };
}

function* refund(ticket: string, orderId: string, request: JsonObject, flaw: OrderOpsFlaw): Script {
  const key = `${ticket}-refund`;
  const issue = (k: string) =>
    call(
      "issue_refund",
      {
        order_id: orderId,
        amount: Number(request.amount),
        reason: String(request.reason),
        idempotency_key: k,
      },
      1,
    );
  const closeRefunded = (refundId: string): AgentAction => ({
    tool: "close_ticket",
    args: { ticket_id: ticket, resolution: "refunded", reference: refundId },
  });
  const first = yield* issue(key);
  if (ok(first)) {
    yield closeRefunded(String(first.refund_id));
    return;
  }
  if (!first.error.retryable) {
    yield* escalateAndClose(ticket, `refund failed: ${first.error.code}`, [key]);
    return;
  }
  if (flaw === "claims-success") {
    yield { tool: "close_ticket", args: { ticket_id: ticket, resolution: "refunded" } };
    return;
  }
  const done = yield* reconcileWrite({
    key,
    write: issue,
    find: { tool: "list_refunds", list: "refunds" },
    id: "refund_id",
    newKeys: flaw === "new-key-retry",
  });
  if (done.id !== undefined) {
    yield closeRefunded(done.id);
    return;
  }
  yield* escalateAndClose(ticket, "could not confirm the refund", done.keys);
}

function* cancel(ticket: string, orderId: string, reason: string, flaw: OrderOpsFlaw): Script {
  const got = yield* call("get_order", { order_id: orderId });
  if (!ok(got)) {
    yield* escalateAndClose(ticket, `cannot read the order: ${got.error.code}`, []);
    return;
  }
  const order = got.order as JsonObject;
  const c = yield* call("cancel_order", { order_id: orderId, reason });
  if (!ok(c)) {
    if (c.error.code === "already_shipped") {
      yield* escalateAndClose(ticket, "the order shipped before it could be cancelled", [orderId]);
    } else {
      yield* escalateAndClose(ticket, `cancel failed: ${c.error.code}`, [orderId]);
    }
    return;
  }
  if (flaw === "double-refund" && Number(order.total) > 0) {
    // the flaw: refunds by hand on top of the automatic refund
    yield* call(
      "issue_refund",
      { order_id: orderId, amount: Number(order.total), reason: reason, idempotency_key: `${ticket}-refund` },
      1,
    );
  }
  const reference = c.refund_id === null ? orderId : String(c.refund_id);
  yield { tool: "close_ticket", args: { ticket_id: ticket, resolution: "cancelled", reference } };
}

function ticketOf(obs: Observation): Ticket {
  if (
    obs.kind !== "task" ||
    typeof obs.context.ticket_id !== "string" ||
    typeof obs.context.request !== "object"
  ) {
    throw new Error("the first observation does not name a ticket and its request");
  }
  const c = obs.context;
  return {
    ticket_id: c.ticket_id as string,
    ...(typeof c.order_id === "string" ? { order_id: c.order_id } : {}),
    ...(typeof c.external_ref === "string" ? { external_ref: c.external_ref } : {}),
    request: c.request as JsonObject,
  };
}

/** A scripted order-ops policy with the given flaw (exported for linked worlds). */
export function orderOpsPolicy(id: string, flaw: OrderOpsFlaw): Agent {
  return scriptPolicy(id, (first) => script(ticketOf(first), flaw));
}

/** The scripted policies that ship with the world. `careful` is the known-good one. */
export const ORDER_OPS_POLICIES: Record<string, Agent> = {
  careful: orderOpsPolicy("careful", "none"),
  "blind-update": orderOpsPolicy("blind-update", "blind-update"),
  "claims-success": orderOpsPolicy("claims-success", "claims-success"),
  "new-key-retry": orderOpsPolicy("new-key-retry", "new-key-retry"),
  "double-refund": orderOpsPolicy("double-refund", "double-refund"),
};

/** Families each bad policy is built to fail, with the violation codes that should catch it. */
export const EXPECTED_FAILURES: Record<string, { families: string[]; codes: string[] }> = {
  "blind-update": { families: ["address-change-shipped"], codes: ["write_after_shipment"] },
  "claims-success": { families: ["refund-lost-reply"], codes: ["unsupported_claim"] },
  "new-key-retry": { families: ["refund-lost-reply"], codes: ["duplicate_refund"] },
  "double-refund": { families: ["cancel-order"], codes: ["duplicate_refund", "over_refund"] },
};
