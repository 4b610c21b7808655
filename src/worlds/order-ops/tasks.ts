import type { Task, TaskRequest } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import { Rng } from "../../core/rng.ts";
import {
  assembleTask,
  drawFrom,
  latencyFor,
  numberParam,
  pad,
  personName,
  type Range,
  type RateLimit,
  rateLimitFor,
  rateLimitParam,
  readTaskRequest,
  streetLine,
  transientUnavailableFor,
  uniqueIds,
} from "../shared/index.ts";
import type { Address, Customer, CustomerRequest, Order, OrderItem, Shipment, Ticket } from "./state.ts";
import { WORLD_ID } from "./state.ts";

const ALL = [1, 2, 3, 4, 5];

export const FAMILIES: readonly FamilyInfo[] = [
  {
    name: "address-change",
    description: "change the shipping address of an order that has not shipped (at d3+ it ships later)",
    difficulties: ALL,
  },
  {
    name: "address-change-shipped",
    description: "change the address of an order that already shipped: only a carrier redirect works",
    difficulties: ALL,
  },
  { name: "refund", description: "refund one item of an order, exactly once", difficulties: ALL },
  {
    name: "refund-lost-reply",
    description: "the first issue_refund commits, then answers timeout (at d3+ it shows up late)",
    difficulties: ALL,
  },
  {
    name: "cancel-order",
    description: "cancel an unshipped order; cancelling refunds it automatically",
    difficulties: ALL,
  },
];

export type Family =
  | "address-change"
  | "address-change-shipped"
  | "refund"
  | "refund-lost-reply"
  | "cancel-order";

/** A background job scheduled at reset. */
export interface StartJob {
  kind: "order.ship";
  order_id: string;
  after: number;
}

/** Data handed over by a linked task (e.g. a device-support replacement): the order is built from it. */
export interface LinkParams {
  /** The other system's id of what this order fulfils (a replacement request id). */
  external_ref: string;
  customer_name: string;
  addresses: { address_id: string; line: string }[];
  /** The address the order ships to. */
  address_id: string;
  /** What the order ships (e.g. the replacement's device model). */
  item: string;
}

/** The hidden parameters of an order-ops task: the whole start state and the faults. */
export interface OrderOpsParams {
  ticket_id: string;
  order_id: string;
  request: CustomerRequest;
  /** What the agent is told in the task observation (`ticket_id`, `order_id` or `external_ref`, `request`). */
  context: JsonObject;
  today: string;
  customers: Customer[];
  orders: Order[];
  shipments: Shipment[];
  tickets: Ticket[];
  jobs: StartJob[];
  latency: number;
  firstRefund: "normal" | "lost-reply";
  refundDelay: number;
  /** Service faults: the world declares them as harness rules for the task (`serviceFaultRules`). */
  rateLimit: RateLimit;
  transientUnavailable: string[];
}

/** Tunable knobs a caller may override through `params`. */
const OVERRIDABLE = ["latency", "refundDelay", "shipDelay", "distractors", "rateLimit", "link"] as const;

const CITIES = ["Lyon", "Porto", "Leeds", "Graz", "Aarhus", "Gdansk", "Turin", "Ghent"];
const CARRIERS = ["DHL", "UPS", "GLS", "DPD"];
const PRODUCTS: [string, string, number][] = [
  ["KB-101", "mechanical keyboard", 8900],
  ["MS-220", "wireless mouse", 3400],
  ["HD-330", "noise-cancelling headphones", 19900],
  ["CB-044", "USB-C cable (2 m)", 1500],
  ["DK-510", "laptop dock", 14900],
  ["WC-090", "webcam", 6900],
  ["SP-303", "desk speaker", 5900],
];

interface Ranges {
  distractors: number;
  latency: number;
  shipDelay: Range;
  refundDelay: Range;
  rateLimit: RateLimit;
  transientUnavailable: string[];
}

/** What difficulty changes: distractors, delays, latency, rate limits, transient faults. */
function rangesFor(family: Family, d: number): Ranges {
  return {
    distractors: [1, 2, 4, 6, 9][d - 1],
    latency: latencyFor(d),
    // the warehouse ships the order later in the episode (never before a prompt agent can act)
    shipDelay: d >= 3 ? [150 * (d - 2), 400 * (d - 2)] : [0, 0],
    refundDelay: family === "refund-lost-reply" && d >= 3 ? [30 * (d - 2), 200 * (d - 2)] : [0, 0],
    rateLimit: rateLimitFor(d),
    transientUnavailable: transientUnavailableFor(d, "get_shipment"),
  };
}

function checkLink(params: JsonObject): void {
  if (params.link !== undefined && !isLink(params.link)) {
    throw configError(
      "bad_param",
      "task param `link` needs external_ref, customer_name, addresses[{address_id, line}], address_id, item",
    );
  }
}

function isLink(v: unknown): v is LinkParams {
  if (typeof v !== "object" || v === null) return false;
  const l = v as Record<string, unknown>;
  return (
    typeof l.external_ref === "string" &&
    typeof l.customer_name === "string" &&
    typeof l.address_id === "string" &&
    typeof l.item === "string" &&
    Array.isArray(l.addresses) &&
    l.addresses.length > 0 &&
    l.addresses.every(
      (a) =>
        typeof a === "object" &&
        a !== null &&
        typeof (a as Address).address_id === "string" &&
        typeof (a as Address).line === "string",
    ) &&
    l.addresses.some((a) => (a as Address).address_id === l.address_id)
  );
}

/** Deterministic task generation from (family, difficulty, params, seed). */
export function generateTask(request: TaskRequest): Task {
  const read = readTaskRequest(request, { id: WORLD_ID, families: FAMILIES, tunable: OVERRIDABLE });
  const family = read.family.name as Family;
  const overrides = read.overrides;
  checkLink(overrides);
  const difficulty = request.difficulty;
  const link = overrides.link as unknown as LinkParams | undefined;
  const ranges = rangesFor(family, difficulty);
  const rng = Rng.seeded(request.seed, `${WORLD_ID}/${family}/${difficulty}`);
  const distractors = numberParam(overrides.distractors) ?? ranges.distractors;

  const uniqueId = uniqueIds(rng, new Set(link ? link.addresses.map((a) => a.address_id) : []));
  const year = 2026;
  const month = rng.int(1, 12);
  const today = `${year}-${pad(month, 2)}-${pad(rng.int(10, 28), 2)}`;
  const customers: Customer[] = [];
  const orders: Order[] = [];
  const shipments: Shipment[] = [];
  const tickets: Ticket[] = [];
  const jobs: StartJob[] = [];
  const address = (): Address => ({
    address_id: uniqueId("A", 5),
    line: streetLine(rng),
    city: rng.pick(CITIES),
  });
  const items = (): OrderItem[] => {
    const picks = rng.shuffle(PRODUCTS).slice(0, rng.int(1, 3));
    return picks.map(([sku, name, price]) => ({ sku, name, qty: rng.int(1, 2), unit_price: price }));
  };
  const totalOf = (list: OrderItem[]) => list.reduce((sum, i) => sum + i.qty * i.unit_price, 0);
  const shipmentFor = (order: Order, t: number): Shipment => ({
    shipment_id: uniqueId("SH", 6),
    order_id: order.order_id,
    carrier: rng.pick(CARRIERS),
    tracking: `1Z${pad(rng.int(0, 99_999_999), 8)}`,
    status: "in_transit",
    address_id: order.address_id,
    shipped_at: t,
  });

  const makeOrder = (status: Order["status"]) => {
    const customer: Customer = {
      customer_id: uniqueId("CU", 5),
      name: personName(rng),
      addresses: [],
    };
    const n = rng.int(2, 3);
    for (let i = 0; i < n; i++) customer.addresses.push(address());
    const list = items();
    const order: Order = {
      order_id: uniqueId("O", 6),
      customer_id: customer.customer_id,
      items: list,
      total: totalOf(list),
      status,
      address_id: customer.addresses[0].address_id,
      external_ref: "",
      placed_at: `${year}-${pad(month, 2)}-${pad(rng.int(1, 9), 2)}`,
    };
    customers.push(customer);
    orders.push(order);
    if (status === "shipped") shipments.push(shipmentFor(order, -rng.int(3600, 86_400)));
    return { customer, order };
  };

  // ---- the order the ticket is about
  let target: { customer: Customer; order: Order };
  if (link) {
    const customer: Customer = {
      customer_id: uniqueId("CU", 5),
      name: link.customer_name,
      addresses: link.addresses.map((a) => ({
        address_id: a.address_id,
        line: a.line,
        city: rng.pick(CITIES),
      })),
    };
    if (customer.addresses.length < 2) customer.addresses.push(address());
    const list: OrderItem[] = [
      { sku: "RPL-DEVICE", name: `replacement ${link.item}`, qty: 1, unit_price: 0 },
      {
        sku: "SHIP-EXPRESS",
        name: "express shipping",
        qty: 1,
        unit_price: rng.pick([1299, 1499, 1999, 2499]),
      },
    ];
    const order: Order = {
      order_id: uniqueId("O", 6),
      customer_id: customer.customer_id,
      items: list,
      total: totalOf(list),
      status: "placed",
      address_id: link.address_id,
      external_ref: link.external_ref,
      placed_at: today,
    };
    customers.push(customer);
    orders.push(order);
    target = { customer, order };
  } else {
    target = makeOrder("placed");
  }
  const { customer, order } = target;
  if (family === "address-change-shipped") {
    order.status = "shipped";
    shipments.push(shipmentFor(order, -rng.int(600, 7200)));
  } else if (family !== "refund" && family !== "refund-lost-reply") {
    order.status = rng.pick(["placed", "packed"] as const);
  } else if (!link) {
    order.status = "delivered";
    shipments.push({ ...shipmentFor(order, -rng.int(86_400, 864_000)), status: "delivered" });
  }
  const others = customer.addresses.filter((a) => a.address_id !== order.address_id);
  const newAddress = rng.pick(others);

  let ask: CustomerRequest;
  if (family === "address-change" || family === "address-change-shipped") {
    ask = { type: "address_change", address_id: newAddress.address_id };
  } else if (family === "cancel-order") {
    ask = {
      type: "cancel",
      reason: rng.pick(["ordered by mistake", "found it cheaper", "no longer needed"]),
    };
  } else {
    const paid = order.items.filter((i) => i.unit_price > 0);
    const item = link ? paid[paid.length - 1] : rng.pick(paid);
    ask = {
      type: "refund",
      amount: item.unit_price,
      reason: link ? "the replacement arrived late; refund the express shipping fee" : `damaged ${item.name}`,
    };
  }
  const shipDelay = numberParam(overrides.shipDelay) ?? drawFrom(rng, ranges.shipDelay);
  if ((family === "address-change" || family === "cancel-order") && shipDelay > 0) {
    jobs.push({ kind: "order.ship", order_id: order.order_id, after: shipDelay });
  }
  const ticket: Ticket = {
    ticket_id: uniqueId("T", 5),
    order_id: order.order_id,
    customer_id: customer.customer_id,
    status: "open",
  };
  tickets.push(ticket);

  for (let i = 0; i < distractors; i++) {
    const d = makeOrder(rng.pick(["placed", "packed", "shipped", "delivered"] as const));
    if (rng.bool(0.4)) {
      tickets.push({
        ticket_id: uniqueId("T", 5),
        order_id: d.order.order_id,
        customer_id: d.customer.customer_id,
        status: "open",
      });
    }
  }
  const order_ids = rng.shuffle(orders.map((_, i) => i));
  const refundDelay = numberParam(overrides.refundDelay) ?? drawFrom(rng, ranges.refundDelay);
  const context: JsonObject = {
    ticket_id: ticket.ticket_id,
    ...(link ? { external_ref: link.external_ref } : { order_id: order.order_id }),
    request: ask as unknown as JsonObject,
  };
  const params: OrderOpsParams = {
    ticket_id: ticket.ticket_id,
    order_id: order.order_id,
    request: ask,
    context,
    today,
    customers: rng.shuffle(customers),
    orders: order_ids.map((i) => orders[i]),
    shipments,
    tickets,
    jobs,
    latency: numberParam(overrides.latency) ?? ranges.latency,
    firstRefund: family === "refund-lost-reply" ? "lost-reply" : "normal",
    refundDelay,
    rateLimit: rateLimitParam(overrides.rateLimit) ?? ranges.rateLimit,
    transientUnavailable: ranges.transientUnavailable,
  };
  const instruction = instructionFor(family, params, customer, newAddress, Boolean(link));
  return assembleTask({
    world: WORLD_ID,
    family,
    difficulty,
    seed: request.seed,
    split: request.split,
    overrides,
    params: params as unknown as JsonObject,
    instruction,
    tags: tagsFor(family, params, Boolean(link)),
    ranges: { ...ranges, overrides } as unknown as JsonObject,
  });
}

function instructionFor(
  family: Family,
  p: OrderOpsParams,
  customer: Customer,
  newAddress: Address,
  linked: boolean,
): string {
  const which = linked
    ? `the order that fulfils ${String(p.context.external_ref)} (find it by its external_ref)`
    : `order ${p.order_id}`;
  const head = `Ticket ${p.ticket_id}: customer ${customer.name} writes about ${which}. `;
  const policy =
    "Close the ticket with the resolution that matches what actually happened, and never claim an outcome " +
    "you have not confirmed; escalate (with the ids of operations you could not confirm) when you cannot " +
    "establish it.";
  switch (family) {
    case "address-change":
    case "address-change-shipped":
      return (
        head +
        `They want it delivered to their address ${newAddress.address_id} (${newAddress.line}, ${newAddress.city}). ` +
        "Before you change the address, check whether the order already shipped: an order's address can be " +
        "updated only while it has not shipped; a package already on its way can only be redirected with the " +
        "carrier. Close with address_updated or redirected. " +
        policy
      );
    case "cancel-order":
      return (
        head +
        "They want to cancel it. Cancelling an unshipped order refunds it in full automatically; do not refund " +
        "it again. Close with cancelled. " +
        policy
      );
    default: {
      const r = p.request as { amount: number; reason: string };
      return (
        head +
        `Refund ${(r.amount / 100).toFixed(2)} (${r.amount} cents) for: ${r.reason}. Refund exactly once; use ` +
        "an idempotency key so a retry never refunds twice. Close with refunded and the refund id as reference. " +
        policy
      );
    }
  }
}

function tagsFor(family: Family, p: OrderOpsParams, linked: boolean): string[] {
  const tags: string[] = [];
  if (p.firstRefund !== "normal") tags.push(`fault:${p.firstRefund}`);
  if (p.refundDelay > 0) tags.push("delayed-refund");
  if (p.jobs.length) tags.push("ships-during-episode");
  if (p.rateLimit.limit > 0) tags.push("rate-limited");
  if (p.transientUnavailable.length) tags.push("transient-unavailable");
  if (family === "address-change-shipped") tags.push("already-shipped");
  if (linked) tags.push("linked");
  return tags;
}
