import type { ToolWorldState } from "../../core/tool-world.ts";

export const WORLD_ID = "order-ops@1";
export const VERIFIER_ID = "verify.order-ops@1";

export interface Address {
  address_id: string;
  line: string;
  city: string;
}
export interface Customer {
  customer_id: string;
  name: string;
  addresses: Address[];
}
export interface OrderItem {
  sku: string;
  name: string;
  qty: number;
  /** Cents. */
  unit_price: number;
}
export type OrderStatus = "placed" | "packed" | "shipped" | "delivered" | "cancelled";
export interface Order {
  order_id: string;
  customer_id: string;
  items: OrderItem[];
  /** Cents paid. */
  total: number;
  status: OrderStatus;
  /** Shipping address on the order record. */
  address_id: string;
  /** Reference in another system (e.g. a device-support replacement request id), or "". */
  external_ref: string;
  placed_at: string;
}
export type ShipmentStatus = "in_transit" | "delivered";
export interface Shipment {
  shipment_id: string;
  order_id: string;
  carrier: string;
  tracking: string;
  status: ShipmentStatus;
  /** Where the package is going (changes only through `request_redirect`). */
  address_id: string;
  shipped_at: number;
}
export interface Refund {
  refund_id: string;
  order_id: string;
  /** Cents. */
  amount: number;
  reason: string;
  idempotency_key: string;
  committed_at: number;
  visible_at: number;
  visible: boolean;
}
export interface Ticket {
  ticket_id: string;
  order_id: string;
  customer_id: string;
  status: "open" | "closed";
}
export interface Message {
  message_id: string;
  ticket_id: string;
  text: string;
  t: number;
}
export interface Escalation {
  escalation_id: string;
  ticket_id: string;
  reason: string;
  operation_ids: string[];
  t: number;
}
export const RESOLUTIONS = [
  "address_updated",
  "redirected",
  "refunded",
  "cancelled",
  "escalated",
  "no_action",
] as const;
export type Resolution = (typeof RESOLUTIONS)[number];
export interface Closure {
  ticket_id: string;
  resolution: Resolution;
  reference?: string;
  step: number;
  t: number;
}

/** What the customer asks for in the ticket (the agent sees it in the task context). */
export type CustomerRequest =
  | { type: "address_change"; address_id: string }
  | { type: "refund"; amount: number; reason: string }
  | { type: "cancel"; reason: string };

export interface Entities {
  today: string;
  customers: Customer[];
  orders: Order[];
  shipments: Shipment[];
  refunds: Refund[];
  tickets: Ticket[];
  messages: Message[];
  escalations: Escalation[];
  closure?: Closure;
}

/**
 * How the service behaves in this episode, as the spec defines its task families (from the task's
 * params; hidden from the agent): the first refund's lost reply, the refund visibility delay. The rate
 * limit and transient faults are harness rules the task declares.
 */
export interface FaultState {
  /** What the first valid, new-key `issue_refund` does. */
  firstRefund: "normal" | "lost-reply";
  firstRefundDone: boolean;
  /** Seconds until a refund becomes visible to `list_refunds`. */
  refundDelay: number;
}

export type { TraceEntry } from "../../core/tool-world.ts";

export interface OrderOpsState extends ToolWorldState<Entities, FaultState> {
  counters: { refund: number; shipment: number; message: number; escalation: number };
}
