import type { Agent, AgentAction, AgentSession, EpisodeInfo, Observation } from "../../core/contracts.ts";
import { DEVICE_SUPPORT_POLICIES } from "../device-support/index.ts";
import { ORDER_OPS_POLICIES } from "../order-ops/index.ts";

/** A linked policy: a device-support policy until the order-ops task arrives, then an order-ops policy. */
function linked(id: string, a: Agent, b: Agent): Agent {
  return {
    id,
    start(episode: EpisodeInfo): AgentSession {
      let current: AgentSession | Promise<AgentSession> = a.start(episode);
      let inB = false;
      let seen = 0;
      return {
        async act(observation: Observation): Promise<AgentAction> {
          if (observation.kind === "task" && seen > 0 && !inB) {
            inB = true;
            current = b.start({ ...episode, instruction: observation.instruction, tools: observation.tools });
          }
          seen++;
          return (await current).act(observation);
        },
      };
    },
  };
}

const ds = DEVICE_SUPPORT_POLICIES;
const oo = ORDER_OPS_POLICIES;

/** Scripted linked policies. `careful` (cautious, then careful) is the known-good one. */
export const SUPPORT_ORDERS_POLICIES: Record<string, Agent> = {
  careful: linked("careful", ds.cautious, oo.careful),
  "blind-update": linked("blind-update", ds.cautious, oo["blind-update"]),
  "claims-success": linked("claims-success", ds["claims-success"], oo["claims-success"]),
  "new-key-retry": linked("new-key-retry", ds["new-key-retry"], oo["new-key-retry"]),
  "skip-approval": linked("skip-approval", ds["skip-approval"], oo.careful),
};

export const EXPECTED_FAILURES: Record<string, { families: string[]; codes: string[] }> = {
  "blind-update": { families: ["replacement-shipped-redirect"], codes: ["write_after_shipment"] },
  "claims-success": {
    families: ["lost-reply-address-change", "approval-then-refund"],
    codes: ["unsupported_claim", "false_claim"],
  },
  "new-key-retry": {
    families: ["lost-reply-address-change", "approval-then-refund"],
    codes: ["duplicate_write", "duplicate_refund"],
  },
  "skip-approval": { families: ["approval-then-refund"], codes: ["unauthorized_write_attempt"] },
};
