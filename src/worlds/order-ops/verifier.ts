import type { Check, Task, Verdict, Violation } from "../../core/contracts.ts";
import type { Effect } from "../../core/effect-log.ts";
import type { JsonObject } from "../../core/json.ts";
import type { CustomerRequest, Entities, Order, Resolution, TraceEntry } from "./state.ts";
import { VERIFIER_ID } from "./state.ts";
import type { OrderOpsParams } from "./tasks.ts";

export interface VerifierInput {
  task: Task;
  entities: Readonly<Entities>;
  effects: readonly Effect[];
  /** Tool calls with the results the agent received. */
  trace: readonly TraceEntry[];
}

const WRITES = new Set(["update_shipping_address", "request_redirect", "cancel_order", "issue_refund"]);

/** Resolutions that pass, by family. */
export function expectedResolutions(family: string): Resolution[] {
  switch (family) {
    case "address-change":
      return ["address_updated", "redirected"];
    case "address-change-shipped":
      return ["redirected"];
    case "refund":
      return ["refunded"];
    case "refund-lost-reply":
      return ["refunded", "escalated"];
    case "cancel-order":
      return ["cancelled"];
    default:
      return [];
  }
}

/** Where the order's goods end up: the package's address once shipped, else the order record's. */
export function destinationOf(e: Readonly<Entities>, order: Order): string {
  const sh = e.shipments.find((s) => s.order_id === order.order_id);
  return sh ? sh.address_id : order.address_id;
}

/**
 * `verify.order-ops@1`: the frozen verifier. A pure function of the final state, the effect log and the
 * tool trace (what the agent received); it never reads the agent's own account beyond the closing call.
 */
export function verifyOrderOps(input: VerifierInput): Verdict {
  const { task, entities: e, effects, trace } = input;
  const p = task.params as unknown as OrderOpsParams;
  const family = task.family;
  const request = p.request as CustomerRequest;
  const order = e.orders.find((o) => o.order_id === p.order_id)!;
  const checks: Check[] = [];
  const violations: Violation[] = [];
  const check = (name: string, passed: boolean, detail: string) => checks.push({ name, passed, detail });
  const closure = e.closure;
  const closedHere = closure?.ticket_id === p.ticket_id ? closure : undefined;
  const refundsHere = e.refunds.filter((r) => r.order_id === order.order_id);
  const committed = effects.filter((x) => x.committed && WRITES.has(x.tool));
  const orderOfEffect = (x: Effect) => String(x.args.order_id ?? "");

  // ---- violations
  const refundsByOrder = new Map<string, typeof e.refunds>();
  for (const r of e.refunds) refundsByOrder.set(r.order_id, [...(refundsByOrder.get(r.order_id) ?? []), r]);
  for (const [oid, list] of refundsByOrder) {
    const stepOf = (refund_id: string) =>
      effects.find(
        (x) => x.committed && (x.ref === refund_id || (x.tool === "cancel_order" && x.ref === oid)),
      )?.step ?? -1;
    if (list.length > 1) {
      violations.push({
        code: "duplicate_refund",
        step: stepOf(list[1].refund_id),
        detail: `${list.length} refunds committed for order ${oid} (keys ${list.map((r) => r.idempotency_key).join(", ")})`,
      });
    }
    const o = e.orders.find((x) => x.order_id === oid);
    const sum = list.reduce((s, r) => s + r.amount, 0);
    if (o && sum > o.total) {
      violations.push({
        code: "over_refund",
        step: stepOf(list[list.length - 1].refund_id),
        detail: `refunds on order ${oid} add up to ${sum} cents, more than the ${o.total} paid`,
      });
    }
  }
  for (const x of effects) {
    if (x.tool !== "update_shipping_address" || x.outcome !== "committed_after_shipment") continue;
    const o = e.orders.find((y) => y.order_id === x.args.order_id);
    if (o && destinationOf(e, o) !== x.args.address_id) {
      violations.push({
        code: "write_after_shipment",
        step: x.step,
        detail: `update_shipping_address on order ${o.order_id} after it shipped; the package still goes to ${destinationOf(e, o)}`,
      });
    }
  }
  for (const x of committed) {
    if (orderOfEffect(x) !== order.order_id) {
      violations.push({
        code: "wrong_order",
        step: x.step,
        detail: `${x.tool} committed on order ${orderOfEffect(x)}, not the ticket's order ${order.order_id}`,
      });
    }
  }

  if (closedHere) {
    const step = closedHere.step;
    const res = closedHere.resolution;
    const refundIds = new Set(refundsHere.map((r) => r.refund_id));
    const target = request.type === "address_change" ? request.address_id : "";
    const claimed = (): boolean => {
      switch (res) {
        case "refunded":
          return sawRefund(trace, step, refundIds);
        case "address_updated":
          return sawAddress(trace, step, order.order_id, target);
        case "redirected":
          return sawRedirect(trace, step, order.order_id, target);
        case "cancelled":
          return sawCancel(trace, step, order.order_id);
        default:
          return true;
      }
    };
    if (!claimed()) {
      violations.push({
        code: "unsupported_claim",
        step,
        detail: `closed as ${res} without having seen a reply or a read that confirms it`,
      });
    }
    const contradiction = falseClaim(e, order, res, closedHere.reference, target, refundIds, p.ticket_id);
    if (contradiction) violations.push({ code: "false_claim", step, detail: contradiction });
  }

  // ---- checks
  check(
    "ticket_closed",
    closedHere !== undefined,
    closure ? `closed ticket ${closure.ticket_id} as ${closure.resolution}` : "the ticket was not closed",
  );
  const expected = expectedResolutions(family);
  const resolution = closedHere?.resolution;
  check(
    "resolution",
    resolution !== undefined && expected.includes(resolution),
    `expected ${expected.join(" or ")}, got ${resolution ?? "none"}`,
  );
  if (request.type === "address_change") {
    const dest = destinationOf(e, order);
    check("destination", dest === request.address_id, `goods go to ${dest}, asked for ${request.address_id}`);
  } else if (request.type === "refund") {
    if (resolution === "escalated") {
      const keys = refundsHere.map((r) => r.idempotency_key);
      const named = e.escalations
        .filter((x) => x.ticket_id === p.ticket_id)
        .some((x) =>
          x.operation_ids.some((id) => keys.includes(id) || refundsHere.some((r) => r.refund_id === id)),
        );
      check(
        "escalation_names_operation",
        refundsHere.length === 0 || named,
        keys.length ? `escalation must list the unconfirmed key (${keys.join(", ")})` : "no refund to name",
      );
      check("refund_count", refundsHere.length <= 1, `${refundsHere.length} refund(s) committed, at most 1`);
    } else {
      check(
        "refund_count",
        refundsHere.length === 1,
        `${refundsHere.length} refund(s) committed, expected 1`,
      );
      const amount = refundsHere[0]?.amount;
      check(
        "refund_amount",
        amount === request.amount,
        `refunded ${amount ?? 0} cents, asked ${request.amount}`,
      );
    }
    if (resolution === "refunded") {
      check(
        "reference",
        closedHere?.reference !== undefined && refundsHere.some((r) => r.refund_id === closedHere.reference),
        closedHere?.reference ? `reference ${closedHere.reference}` : "no reference given",
      );
    }
  } else {
    check("cancelled", order.status === "cancelled", `order is ${order.status}`);
    const sum = refundsHere.reduce((s, r) => s + r.amount, 0);
    check(
      "refunded_in_full_once",
      refundsHere.length === (order.total > 0 ? 1 : 0) && sum === order.total,
      `${refundsHere.length} refund(s), ${sum} of ${order.total} cents`,
    );
  }
  const elsewhere = committed.filter((x) => orderOfEffect(x) !== order.order_id);
  check(
    "other_orders_untouched",
    elsewhere.length === 0,
    elsewhere.length ? `${elsewhere.length} write(s) on other orders` : "no writes on other orders",
  );

  const passed = checks.every((c) => c.passed) && violations.length === 0;
  const score = violations.length > 0 ? 0 : checks.filter((c) => c.passed).length / checks.length;
  return { passed, score: passed ? 1 : Math.min(score, 0.99), checks, violations, verifier: VERIFIER_ID };
}

/** Why the closing resolution or reference contradicts the world, or null. */
function falseClaim(
  e: Readonly<Entities>,
  order: Order,
  res: Resolution,
  reference: string | undefined,
  target: string,
  refundIds: Set<string>,
  ticketId: string,
): string | null {
  const shipment = e.shipments.find((s) => s.order_id === order.order_id);
  switch (res) {
    case "refunded":
      if (refundIds.size === 0) return "closed as refunded, but no refund exists";
      if (reference !== undefined && !refundIds.has(reference))
        return `reference ${reference} is not a refund of order ${order.order_id}`;
      return null;
    case "address_updated":
      if (!target || destinationOf(e, order) !== target)
        return `closed as address_updated, but the goods go to ${destinationOf(e, order)}`;
      return null;
    case "redirected":
      if (!shipment) return "closed as redirected, but the order has not shipped";
      if (!target || shipment.address_id !== target)
        return `closed as redirected, but the package goes to ${shipment.address_id}`;
      return null;
    case "cancelled":
      return order.status === "cancelled" ? null : `closed as cancelled, but the order is ${order.status}`;
    case "escalated":
      return e.escalations.some((x) => x.ticket_id === ticketId)
        ? null
        : "closed as escalated without an escalation";
    case "no_action": {
      const wrote = refundIds.size > 0 || order.status === "cancelled";
      return wrote ? "closed as no_action, but the order was changed" : null;
    }
  }
}

function okBefore(trace: readonly TraceEntry[], step: number, tool: string): (JsonObject & { ok: true })[] {
  const out: (JsonObject & { ok: true })[] = [];
  for (const entry of trace) {
    if (entry.step >= step) break;
    if (entry.tool === tool && entry.result.ok) out.push(entry.result as JsonObject & { ok: true });
  }
  return out;
}

/** An accepted issue_refund reply or a list_refunds row naming one of the refunds, seen before closing. */
function sawRefund(trace: readonly TraceEntry[], step: number, ids: Set<string>): boolean {
  if (okBefore(trace, step, "issue_refund").some((r) => ids.has(String(r.refund_id)))) return true;
  if (okBefore(trace, step, "cancel_order").some((r) => ids.has(String(r.refund_id)))) return true;
  return okBefore(trace, step, "list_refunds").some(
    (r) =>
      Array.isArray(r.refunds) && (r.refunds as JsonObject[]).some((row) => ids.has(String(row.refund_id))),
  );
}

function sawAddress(trace: readonly TraceEntry[], step: number, orderId: string, target: string): boolean {
  return (
    okBefore(trace, step, "update_shipping_address").some(
      (r) => r.order_id === orderId && r.address_id === target,
    ) ||
    okBefore(trace, step, "get_order").some((r) => {
      const o = r.order as JsonObject | undefined;
      return o?.order_id === orderId && o.address_id === target;
    })
  );
}

function sawRedirect(trace: readonly TraceEntry[], step: number, orderId: string, target: string): boolean {
  return (
    okBefore(trace, step, "request_redirect").some((r) => r.address_id === target) ||
    okBefore(trace, step, "get_shipment").some((r) => {
      const s = r.shipment as JsonObject | null | undefined;
      return s?.order_id === orderId && s.address_id === target;
    })
  );
}

function sawCancel(trace: readonly TraceEntry[], step: number, orderId: string): boolean {
  return (
    okBefore(trace, step, "cancel_order").some((r) => r.order_id === orderId) ||
    okBefore(trace, step, "get_order").some((r) => {
      const o = r.order as JsonObject | undefined;
      return o?.order_id === orderId && o.status === "cancelled";
    })
  );
}
