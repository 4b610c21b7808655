/**
 * Admissible actions over the wire (opt-in): a reset or step that sends `"admissible": true` is
 * answered the environment's list in `metadata.admissible_actions` (`[{tool, args}]`, at most 64,
 * deterministic); a served environment that declares no such capability refuses the request with
 * `VALIDATION_ERROR` before anything is reset or stepped.
 */
import type { AdmissibleActions, Environment } from "../core/contracts.ts";
import type { JsonValue } from "../core/json.ts";
import { ServeError } from "./protocol.ts";

/** The environment's admissible actions, or the coded refusal of a request that asked for them. */
export function admissibleOf(env: Environment, served: string): AdmissibleActions {
  const admissible = env.capabilities.admissible;
  if (!admissible) {
    throw new ServeError(
      "VALIDATION_ERROR",
      `admissible: ${served} declares no admissible actions (see capabilities in /metadata); send no "admissible"`,
      { errors: [{ type: "unsupported", loc: ["admissible"], msg: "no admissible actions" }] },
    );
  }
  return admissible;
}

/** The list as the reply's `metadata.admissible_actions` (empty once the episode ended). */
export function admissibleList(admissible: AdmissibleActions, done: boolean): JsonValue {
  if (done) return [];
  return admissible.admissibleActions().map((a) => ({ tool: a.tool, args: a.args }));
}
