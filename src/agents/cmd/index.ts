export type { CmdJsonlAgentOptions } from "./jsonl-agent.ts";
export { createCmdJsonlAgent, resolveCmdJsonlAgent } from "./jsonl-agent.ts";
export type { GymLine } from "./jsonl-protocol.ts";
export { CMD_JSONL_PROTOCOL } from "./jsonl-protocol.ts";
export { CMD_MCP_PROTOCOL } from "./mcp-protocol.ts";
