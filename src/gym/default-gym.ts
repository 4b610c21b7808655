import { BUILTIN_AGENT_KINDS } from "../agents/builtin-kinds.ts";
import { FAULT_RULES } from "../harness/faults/index.ts";
import { generatedRule } from "../rules/generated-rule.ts";
import { isolateRuleSandbox } from "../rules/isolate-rule-sandbox.ts";
import { BUILTIN_HANDOFFS, BUILTIN_WORLDS } from "../worlds/index.ts";
import { createGym, type Gym, type GymParts } from "./gym.ts";

/** Everything that ships with Proving Ground, as gym parts. */
export const BUILTIN_PARTS = {
  worlds: BUILTIN_WORLDS,
  // generated rule code (`rule.generated@1`) runs in the isolated-vm rule sandbox
  rules: [...FAULT_RULES, generatedRule(isolateRuleSandbox())],
  handoffs: BUILTIN_HANDOFFS,
  agentKinds: BUILTIN_AGENT_KINDS,
} as const satisfies GymParts;

/**
 * The built-in gym: the shipped worlds, fault rules, hand-offs and agent kinds, plus any `extra`
 * parts (a custom world or rule beside the built-ins; an id may not be given twice).
 */
export function defaultGym(extra: GymParts = {}): Gym {
  return createGym({
    ...extra,
    worlds: [...BUILTIN_PARTS.worlds, ...(extra.worlds ?? [])],
    rules: [...BUILTIN_PARTS.rules, ...(extra.rules ?? [])],
    handoffs: [...BUILTIN_PARTS.handoffs, ...(extra.handoffs ?? [])],
    agentKinds: [...BUILTIN_PARTS.agentKinds, ...(extra.agentKinds ?? [])],
  });
}
