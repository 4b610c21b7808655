export type { CmdAgentOptions } from "./cmd-agent.ts";
export { createCmdAgent, resolveCmdAgent } from "./cmd-agent.ts";
export type { GymLine } from "./protocol.ts";
export { CMD_PROTOCOL } from "./protocol.ts";
