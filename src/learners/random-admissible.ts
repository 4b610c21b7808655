import type {
  ActContext,
  AdmissibleAction,
  Agent,
  AgentAction,
  AgentSession,
  Observation,
} from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import { cloneJson } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";

/**
 * The learners' floor: picks uniformly among the admissible actions (seeded, injected RNG). What a
 * learner's pass rate starts from.
 */
export function randomAdmissibleAgent(rng: Rng): Agent & { usesAdmissibleActions: true } {
  return {
    id: "random-admissible",
    usesAdmissibleActions: true,
    start: (): AgentSession => ({
      async act(_observation: Observation, context: ActContext = {}): Promise<AgentAction> {
        const list: readonly AdmissibleAction[] = context.admissible ?? [];
        if (list.length === 0) {
          throw new ProvingError("capability_missing", "random-admissible: no admissible actions were given");
        }
        const chosen = rng.pick(list);
        return { tool: chosen.tool, args: cloneJson(chosen.args) };
      },
    }),
  };
}
