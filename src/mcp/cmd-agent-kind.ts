import { programKind } from "../agents/builtin-kinds.ts";
import type { AgentKind } from "../agents/resolve.ts";
import { importOptional } from "../core/optional-dependency.ts";

/**
 * `cmd:COMMAND`: an external program per episode that acts through an MCP server the gym serves it
 * over streamable HTTP. A plain value the gym wires; the MCP SDK loads only when a spec uses it.
 */
export const CMD_AGENT_KIND: AgentKind = programKind(
  "cmd",
  "an external program per episode, acting through an MCP server over streamable HTTP",
  async () => (await importOptional(() => import("./cmd-agent.ts"))).resolveCmdAgent,
);
