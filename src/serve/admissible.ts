/**
 * Admissible actions over the wire (opt-in): a reset or step that sends `"admissible": true` is
 * answered the environment's list in `metadata.admissible_actions` (`[{tool, args}]`, at most 64,
 * deterministic) and how it spells actions in `metadata.admissible_canonical`; a served environment that declares no such capability refuses the request with
 * `VALIDATION_ERROR` before anything is reset or stepped.
 */
import type { AdmissibleActions, Environment } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
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

/**
 * The reply's metadata for a list: `admissible_actions` (empty once the episode ended) and, when the
 * world declares how it spells actions, `admissible_canonical` (`{key_args, texts}`: what a client
 * needs to canonicalise an action against the list as the world does).
 */
export function admissibleMetadata(admissible: AdmissibleActions, done: boolean): JsonObject {
  const list = done ? [] : admissible.admissibleActions().map((a) => ({ tool: a.tool, args: a.args }));
  const form = done ? undefined : admissible.canonicalForm?.();
  return {
    admissible_actions: list,
    ...(form ? { admissible_canonical: { key_args: form.keyArgs, texts: form.texts } } : {}),
  };
}
