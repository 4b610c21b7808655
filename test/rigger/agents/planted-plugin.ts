// A gym plugin with the planted-weakness agents as an agent kind, so the CLI plays them in-process:
//   proving --gym <description naming this plugin> rig --world order-ops@1 --agent planted:order-rekey
import type { AgentKind } from "../../../src/agents/resolve.ts";
import type { Agent } from "../../../src/core/contracts.ts";
import { configError } from "../../../src/core/errors.ts";
import deviceClaims from "./device-claims.ts";
import deviceRekey from "./device-rekey.ts";
import orderClaims from "./order-claims.ts";
import orderRekey from "./order-rekey.ts";

export const PLANTED: Record<string, Agent> = {
  "order-rekey": orderRekey,
  "order-claims": orderClaims,
  "device-claims": deviceClaims,
  "device-rekey": deviceRekey,
};

const planted: AgentKind = {
  prefix: "planted",
  description: "planted-weakness test agents (test/rigger/agents)",
  async resolve(rest, spec) {
    const agent = PLANTED[rest];
    if (!agent)
      throw configError("unknown_agent", `no planted agent "${rest}" (${Object.keys(PLANTED).join(", ")})`);
    return { ref: { id: `planted-${rest}`, kind: "planted", spec }, forWorld: () => agent };
  },
};

export default { agentKinds: [planted] };
