import { CMD_JSONL_AGENT_KIND, LLM_AGENT_KINDS } from "../agents/builtin-kinds.ts";
import { LEARNER_AGENT_KIND } from "../agents/learner-kind.ts";
import type { AgentKind } from "../agents/resolve.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { FAULT_RULES } from "../harness/faults/index.ts";
import { CMD_AGENT_KIND } from "../mcp/cmd-agent-kind.ts";
import { generatedRule } from "../rules/generated-rule.ts";
import { isolateRuleSandbox } from "../rules/isolate-rule-sandbox.ts";
import { isolateSandbox } from "../sandbox/isolate-sandbox.ts";
import {
  BUILTIN_HANDOFFS,
  codeRepairWorld,
  deviceSupport,
  deviceSupportV2,
  orderOps,
  supportOrders,
} from "../worlds/index.ts";
import type { GymParts } from "./gym.ts";

/** The worlds that ship with Proving Ground, with what they need injected (`defaultGym()` wires them). */
export const BUILTIN_WORLDS: readonly WorldDefinition[] = [
  deviceSupport,
  // device-support@1 plus a simulated customer and the conversation families (@1 stays for its records)
  deviceSupportV2,
  orderOps,
  supportOrders,
  // its workspace code runs in isolated-vm (the sandbox is injected; the world itself stays pure)
  codeRepairWorld(isolateSandbox()),
];

/**
 * The agent kinds that ship with Proving Ground: the LLM kinds (`openai:`, `anthropic:`,
 * `openai-compatible:`), `cmd:` (a program acting over MCP), `cmd-jsonl:` (JSON lines on stdio) and
 * `learner:` (the reference learners).
 */
export const BUILTIN_AGENT_KINDS: readonly AgentKind[] = [
  ...LLM_AGENT_KINDS,
  CMD_AGENT_KIND,
  CMD_JSONL_AGENT_KIND,
  LEARNER_AGENT_KIND,
];

/** Everything that ships with Proving Ground, as gym parts. */
export const BUILTIN_PARTS = {
  worlds: BUILTIN_WORLDS,
  // generated rule code (`rule.generated@1`) runs in the isolated-vm rule sandbox
  rules: [...FAULT_RULES, generatedRule(isolateRuleSandbox())],
  handoffs: BUILTIN_HANDOFFS,
  agentKinds: BUILTIN_AGENT_KINDS,
} as const satisfies GymParts;
