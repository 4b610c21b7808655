import { z } from "zod";
import type { ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { defineTool, type ToolDef, toolError } from "../../core/tool.ts";
import type { WorldToolContext } from "../../core/tool-world.ts";
import {
  closeTool,
  escalateTool,
  idArg as id,
  notFound,
  type Subject,
  sendMessageTool,
  waitTool,
} from "../shared/index.ts";
import type { Customer, Order, OrderOpsState, Refund } from "./state.ts";
import { RESOLUTIONS } from "./state.ts";

/** What a tool may do to the world while it runs (ids only from this world's counters). */
export interface ToolContext extends WorldToolContext<OrderOpsState> {
  newId(prefix: string, counter: keyof OrderOpsState["counters"]): string;
}

const orderId = id("The order id, e.g. O-012345.");
const ticketId = id("The ticket id, e.g. T-01234.");

const findOrder = (ctx: ToolContext, order_id: string) =>
  ctx.state.entities.orders.find((o) => o.order_id === order_id);
const customerOf = (ctx: ToolContext, order: Order): Customer =>
  ctx.state.entities.customers.find((c) => c.customer_id === order.customer_id)!;
const shipmentOf = (ctx: ToolContext, order_id: string) =>
  ctx.state.entities.shipments.find((s) => s.order_id === order_id);
const findTicket = (ctx: ToolContext, ticket_id: string) =>
  ctx.state.entities.tickets.find((t) => t.ticket_id === ticket_id);

/** The ticket: what send_message and escalate name. */
const TICKET: Subject<"ticket_id", ToolContext> = {
  noun: "ticket",
  key: "ticket_id",
  id: ticketId,
  find: findTicket,
};

function orderView(o: Order): JsonObject {
  return { ...o, items: o.items.map((i) => ({ ...i })) } as unknown as JsonObject;
}

function refundRow(r: Refund): JsonObject {
  return {
    refund_id: r.refund_id,
    order_id: r.order_id,
    amount: r.amount,
    reason: r.reason,
    idempotency_key: r.idempotency_key,
  };
}

/** Commits a refund (visible now or after the task's refund delay). */
function commitRefund(ctx: ToolContext, order: Order, amount: number, reason: string, key: string): Refund {
  const s = ctx.state;
  const visibleAt = s.now + s.faults.refundDelay;
  const refund: Refund = {
    refund_id: ctx.newId("RF", "refund"),
    order_id: order.order_id,
    amount,
    reason,
    idempotency_key: key,
    committed_at: s.now,
    visible_at: visibleAt,
    visible: s.faults.refundDelay <= 0,
  };
  s.entities.refunds.push(refund);
  if (!refund.visible) ctx.schedule(visibleAt, "refund.visible", { refund_id: refund.refund_id });
  return refund;
}

const getOrder = defineTool({
  name: "get_order",
  description:
    "Read an order (items, total in cents, status, shipping address id, external_ref) and its customer.",
  input: z.object({ order_id: orderId }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    const o = findOrder(ctx, args.order_id);
    if (!o) return notFound("order", args.order_id);
    const c = customerOf(ctx, o);
    return {
      ok: true,
      order: orderView(o),
      customer: { ...c, addresses: c.addresses.map((a) => ({ ...a })) } as unknown as JsonObject,
    };
  },
});

const findOrders = defineTool({
  name: "find_orders",
  description: "List orders by customer id and/or external_ref (the id of what the order fulfils elsewhere).",
  input: z
    .object({
      customer_id: id("A customer id, e.g. CU-01234.").optional(),
      external_ref: id("An external reference, e.g. a replacement request id.").optional(),
    })
    .strict()
    .refine((a) => a.customer_id !== undefined || a.external_ref !== undefined, {
      message: "give customer_id and/or external_ref",
    }),
  run(args, ctx: ToolContext): ToolResult {
    const rows = ctx.state.entities.orders
      .filter((o) => args.customer_id === undefined || o.customer_id === args.customer_id)
      .filter((o) => args.external_ref === undefined || o.external_ref === args.external_ref)
      .map((o) => ({
        order_id: o.order_id,
        customer_id: o.customer_id,
        status: o.status,
        total: o.total,
        external_ref: o.external_ref,
      }));
    return { ok: true, orders: rows };
  },
});

const getShipment = defineTool({
  name: "get_shipment",
  description:
    "Read the shipment of an order: `shipment` is null until the order ships, then has shipment_id, " +
    "carrier, tracking, status (in_transit, delivered) and the address_id the package is going to.",
  input: z.object({ order_id: orderId }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    if (!findOrder(ctx, args.order_id)) return notFound("order", args.order_id);
    const sh = shipmentOf(ctx, args.order_id);
    return { ok: true, shipment: sh ? ({ ...sh } as unknown as JsonObject) : null };
  },
});

const updateShippingAddress = defineTool({
  name: "update_shipping_address",
  description:
    "Set the shipping address on the order record. The warehouse uses it when the order ships; it does " +
    "not change a package that has already shipped (use request_redirect for that).",
  input: z.object({ order_id: orderId, address_id: id("An address id of the order's customer.") }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    const o = findOrder(ctx, args.order_id);
    if (!o) return notFound("order", args.order_id);
    if (!customerOf(ctx, o).addresses.some((a) => a.address_id === args.address_id)) {
      return toolError(
        "invalid_argument",
        `argument \`address_id\`: ${args.address_id} is not an address of the order's customer`,
      );
    }
    const wrote = args as unknown as JsonObject;
    if (o.status === "cancelled" || o.status === "delivered") {
      ctx.logEffect({
        tool: "update_shipping_address",
        args: wrote,
        authorized: false,
        committed: false,
        outcome: "invalid_state",
      });
      return toolError("invalid_state", `order ${o.order_id} is ${o.status}`);
    }
    const shipped = o.status === "shipped";
    o.address_id = args.address_id;
    ctx.logEffect({
      tool: "update_shipping_address",
      args: wrote,
      authorized: !shipped,
      committed: true,
      outcome: shipped ? "committed_after_shipment" : "committed",
      ref: o.order_id,
    });
    return { ok: true, order_id: o.order_id, address_id: o.address_id, order_status: o.status };
  },
});

const requestRedirect = defineTool({
  name: "request_redirect",
  description: "Ask the carrier to deliver a package in transit to another address of the customer.",
  input: z
    .object({
      shipment_id: id("The shipment id, e.g. SH-012345."),
      address_id: id("An address id of the customer."),
    })
    .strict(),
  run(args, ctx: ToolContext): ToolResult {
    const sh = ctx.state.entities.shipments.find((x) => x.shipment_id === args.shipment_id);
    if (!sh) return notFound("shipment", args.shipment_id);
    const o = findOrder(ctx, sh.order_id)!;
    if (!customerOf(ctx, o).addresses.some((a) => a.address_id === args.address_id)) {
      return toolError(
        "invalid_argument",
        `argument \`address_id\`: ${args.address_id} is not an address of the order's customer`,
      );
    }
    const wrote = args as unknown as JsonObject;
    if (sh.status !== "in_transit") {
      ctx.logEffect({
        tool: "request_redirect",
        args: wrote,
        authorized: false,
        committed: false,
        outcome: "invalid_state",
      });
      return toolError("invalid_state", `shipment ${sh.shipment_id} is ${sh.status}`);
    }
    sh.address_id = args.address_id;
    ctx.logEffect({
      tool: "request_redirect",
      args: { ...wrote, order_id: o.order_id },
      authorized: true,
      committed: true,
      outcome: "committed",
      ref: sh.shipment_id,
    });
    return { ok: true, shipment_id: sh.shipment_id, address_id: sh.address_id, status: "redirected" };
  },
});

const cancelOrder = defineTool({
  name: "cancel_order",
  description:
    "Cancel an order that has not shipped; it is refunded in full automatically (the reply names the " +
    "refund). Cancelling a cancelled order changes nothing. A shipped order cannot be cancelled.",
  input: z
    .object({ order_id: orderId, reason: z.string().min(1).describe("Why the order is cancelled.") })
    .strict(),
  run(args, ctx: ToolContext): ToolResult {
    const o = findOrder(ctx, args.order_id);
    if (!o) return notFound("order", args.order_id);
    const key = `cancel:${o.order_id}`;
    const wrote = args as unknown as JsonObject;
    if (o.status === "cancelled") {
      const r = ctx.state.entities.refunds.find((x) => x.idempotency_key === key);
      return { ok: true, order_id: o.order_id, status: "cancelled", refund_id: r ? r.refund_id : null };
    }
    if (o.status === "shipped" || o.status === "delivered") {
      ctx.logEffect({
        tool: "cancel_order",
        args: wrote,
        authorized: false,
        committed: false,
        outcome: "already_shipped",
      });
      return toolError("already_shipped", `order ${o.order_id} has already shipped and cannot be cancelled`);
    }
    o.status = "cancelled";
    const refund = o.total > 0 ? commitRefund(ctx, o, o.total, `cancelled: ${args.reason}`, key) : undefined;
    ctx.logEffect({
      tool: "cancel_order",
      args: wrote,
      authorized: true,
      committed: true,
      outcome: "committed",
      ref: o.order_id,
    });
    return {
      ok: true,
      order_id: o.order_id,
      status: "cancelled",
      refund_id: refund ? refund.refund_id : null,
    };
  },
});

const issueRefund = defineTool({
  name: "issue_refund",
  description:
    "Refund an amount (in cents, at most the order total) on an order. Idempotent on idempotency_key: the " +
    "same key returns the same refund_id and refunds nothing new. Refunds are not checked against earlier ones.",
  input: z
    .object({
      order_id: orderId,
      amount: z.number().int().min(1).describe("Amount in cents."),
      reason: z.string().min(1).describe("Why the refund is made."),
      idempotency_key: z.string().min(1).max(200).describe("A key you choose; reuse it when retrying."),
    })
    .strict(),
  run(args, ctx: ToolContext): ToolResult {
    const s = ctx.state;
    const o = findOrder(ctx, args.order_id);
    if (!o) return notFound("order", args.order_id);
    if (args.amount > o.total) {
      return toolError(
        "invalid_argument",
        `argument \`amount\`: ${args.amount} exceeds the order total ${o.total}`,
      );
    }
    const wrote = args as unknown as JsonObject;
    const log = (committed: boolean, outcome: string, ref?: string) =>
      ctx.logEffect({
        tool: "issue_refund",
        args: wrote,
        idempotencyKey: args.idempotency_key,
        authorized: true,
        committed,
        outcome,
        ...(ref !== undefined ? { ref } : {}),
      });
    const existing = s.entities.refunds.find((r) => r.idempotency_key === args.idempotency_key);
    if (existing) {
      if (existing.order_id !== args.order_id) {
        return toolError("invalid_argument", "argument `idempotency_key`: already used for another order");
      }
      log(false, "replayed", existing.refund_id);
      return { ok: true, refund_id: existing.refund_id, status: "accepted" };
    }
    const fault = s.faults.firstRefundDone ? "normal" : s.faults.firstRefund;
    s.faults.firstRefundDone = true;
    const refund = commitRefund(ctx, o, args.amount, args.reason, args.idempotency_key);
    log(true, "committed", refund.refund_id);
    if (fault === "lost-reply") return toolError("timeout", "the request timed out", true);
    return { ok: true, refund_id: refund.refund_id, status: "accepted" };
  },
});

const listRefunds = defineTool({
  name: "list_refunds",
  description:
    "List refunds visible now, by order and/or idempotency key. A refund may take a while to become visible.",
  input: z
    .object({
      order_id: orderId.optional(),
      idempotency_key: z.string().min(1).optional().describe("The key used when refunding."),
    })
    .strict()
    .refine((a) => a.order_id !== undefined || a.idempotency_key !== undefined, {
      message: "give order_id and/or idempotency_key",
    }),
  run(args, ctx: ToolContext): ToolResult {
    if (args.order_id !== undefined && !findOrder(ctx, args.order_id))
      return notFound("order", args.order_id);
    const rows = ctx.state.entities.refunds
      .filter((r) => r.visible)
      .filter((r) => args.order_id === undefined || r.order_id === args.order_id)
      .filter((r) => args.idempotency_key === undefined || r.idempotency_key === args.idempotency_key)
      .map(refundRow);
    return { ok: true, refunds: rows };
  },
});

const sendMessage = sendMessageTool(TICKET);

const escalate = escalateTool(
  TICKET,
  "Hand the ticket to a human, listing the ids (e.g. idempotency keys) of operations whose outcome you " +
    "could not confirm.",
  { key: "escalation_id", prefix: "ESC", counter: "escalation" },
);

const closeTicket = closeTool(TICKET, {
  name: "close_ticket",
  description:
    "Close the ticket with a resolution (address_updated, redirected, refunded, cancelled, escalated, " +
    "no_action) and, where there is one, the id of what you did as reference (a refund id, a shipment id). " +
    "Ends the episode.",
  resolutions: RESOLUTIONS,
  reference: "refund_id, shipment_id or order_id.",
});

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous table of tools, each typed at its definition
export const TOOLS: readonly ToolDef<ToolContext, any>[] = [
  getOrder,
  findOrders,
  getShipment,
  updateShippingAddress,
  requestRedirect,
  cancelOrder,
  issueRefund,
  listRefunds,
  waitTool,
  sendMessage,
  escalate,
  closeTicket,
];

/** Read tools limited when a task sets a rate limit. */
export const RATE_LIMITED_TOOLS: ReadonlySet<string> = new Set([
  "get_order",
  "find_orders",
  "get_shipment",
  "list_refunds",
]);
