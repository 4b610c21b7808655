import { BUILTIN_PARTS } from "./builtin-parts.ts";
import { createGym, type Gym, type GymParts } from "./gym.ts";

/**
 * The built-in gym: the shipped worlds, fault rules, hand-offs and agent kinds, plus any `extra`
 * parts (a custom world or rule beside the built-ins; an id may not be given twice).
 *
 * @example
 * ```ts
 * const gym = defaultGym({ worlds: [myWorld] }); // the built-ins and yours
 * const result = await runExperiment(parseExperiment({ worlds: ["my-world@1"] }), gym.runOptions());
 * ```
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
