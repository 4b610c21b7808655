import type { EnvSpec, Task, ToolDescriptor } from "../../core/contracts.ts";
import { cloneJson, type JsonValue } from "../../core/json.ts";
import { toolDescriptor } from "../../core/tool.ts";
import { episodeStart, type ToolWorldDefinition } from "../../core/tool-world.ts";
import { AdmissibleToolWorld, serviceFaultDispatch } from "../shared/index.ts";
import { ORDER_OPS_ADMISSIBLE } from "./admissible.ts";
import { type OrderOpsState, VERIFIER_ID, WORLD_ID } from "./state.ts";
import type { OrderOpsParams } from "./tasks.ts";
import { RATE_LIMITED_TOOLS, TOOLS } from "./tools.ts";
import { verifyOrderOps } from "./verifier.ts";

export const ORDER_OPS_TOOLS: readonly ToolDescriptor[] = TOOLS.map(toolDescriptor);

export const ORDER_OPS_SPEC: EnvSpec = {
  id: WORLD_ID,
  world: WORLD_ID,
  tools: ORDER_OPS_TOOLS as ToolDescriptor[],
  terminalTools: ["close_ticket"],
  verifier: VERIFIER_ID,
};

/** Builds the start state of an episode from a task and a seed. Pure. */
export function initialState(task: Task, seed: number, episode: string): OrderOpsState {
  const p = task.params as unknown as OrderOpsParams;
  return {
    ...episodeStart(WORLD_ID, task, seed, episode, p.latency),
    entities: {
      today: p.today,
      customers: cloneJson(p.customers),
      orders: cloneJson(p.orders),
      shipments: cloneJson(p.shipments),
      refunds: [],
      tickets: cloneJson(p.tickets),
      messages: [],
      escalations: [],
    },
    faults: {
      firstRefund: p.firstRefund,
      firstRefundDone: false,
      refundDelay: p.refundDelay,
    },
    counters: { refund: 0, shipment: 0, message: 0, escalation: 0 },
  };
}

const DEFINITION: ToolWorldDefinition<OrderOpsState> = {
  spec: ORDER_OPS_SPEC,
  tools: TOOLS,
  // the task's rate limit and transient faults: harness rules at the dispatch point
  rules: serviceFaultDispatch(RATE_LIMITED_TOOLS),
  initialState,
  startJobs: (s) =>
    (s.task.params as unknown as OrderOpsParams).jobs.map((job) => ({
      due: job.after,
      kind: job.kind,
      data: { order_id: job.order_id },
    })),
  taskContext: (s) => cloneJson((s.task.params as unknown as OrderOpsParams).context),
  runJob(s, job, rng) {
    const data = job.data as { order_id?: string; refund_id?: string };
    if (job.kind === "order.ship") {
      const order = s.entities.orders.find((o) => o.order_id === data.order_id);
      if (order && (order.status === "placed" || order.status === "packed")) {
        order.status = "shipped";
        s.entities.shipments.push({
          shipment_id: `SH-${++s.counters.shipment}${rng.id(5).toUpperCase()}`,
          order_id: order.order_id,
          carrier: "DHL",
          tracking: `1Z${rng.id(8).toUpperCase()}`,
          status: "in_transit",
          address_id: order.address_id,
          shipped_at: job.due,
        });
      }
    } else if (job.kind === "refund.visible") {
      const refund = s.entities.refunds.find((r) => r.refund_id === data.refund_id);
      if (refund) refund.visible = true;
    }
  },
  verify: (s, effects) => verifyOrderOps({ task: s.task, entities: s.entities, effects, trace: s.trace }),
};

/**
 * The order-ops world (spec: spec/order-ops.md). As every tool world, it offers virtual time control
 * to harness layers: `elapse(seconds)` and `deferJob(id, seconds)`, and declares admissible actions.
 */
export class OrderOpsWorld extends AdmissibleToolWorld<OrderOpsState> {
  constructor() {
    super(DEFINITION, ORDER_OPS_ADMISSIBLE);
  }

  static fromState(saved: JsonValue): OrderOpsWorld {
    return new OrderOpsWorld().restore(saved);
  }
}
