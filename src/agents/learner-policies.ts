/**
 * Where a learner's saved policy comes from and goes: a JSON file, or the store's `policies` table
 * (by content hash or a unique prefix of it). Used by the `learner:` agent kind (`policy=FILE|ID`),
 * `proving run --policy` and the curriculum's checkpoints.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { checkPolicy, type LearnerId, type LearnerPolicy } from "../learners/policy.ts";
import type { PolicyStore, StoredPolicy } from "../store/policies.ts";

/** A hash or a hash prefix, as `policy=ID` and `--policy ID` take it. */
const POLICY_ID = /^[0-9a-fA-F]{4,64}$/;

/** Where a policy reference was found. */
export interface LoadedPolicy {
  policy: LearnerPolicy;
  /** `file` (a path) or `store` (a hash or prefix). */
  from: "file" | "store";
}

/**
 * The policy `ref` names: a file (a path that exists, relative to `cwd`), else a stored policy by
 * hash or unique prefix. `unknown_policy` when it is neither (or names the store but there is none),
 * `ambiguous_policy` for a prefix of several; `bad_policy` for a file that holds no valid policy.
 */
export async function loadPolicy(
  ref: string,
  ctx: { cwd: string; policies?: PolicyStore | undefined },
): Promise<LoadedPolicy> {
  const file = path.resolve(ctx.cwd, ref);
  if (existsSync(file)) {
    let saved: unknown;
    try {
      saved = JSON.parse(await readFile(file, "utf8"));
    } catch (err) {
      throw configError("bad_policy", `cannot read the policy ${file}: ${errorMessage(err)}`);
    }
    return { policy: checked(saved, file), from: "file" };
  }
  if (!POLICY_ID.test(ref))
    throw configError(
      "unknown_policy",
      `no policy file ${file}; a stored policy is named by its hash or a prefix of at least 4 hex characters`,
    );
  if (!ctx.policies)
    throw configError(
      "unknown_policy",
      `${ref} is not a file, and there is no store to look the policy up in (give --store)`,
    );
  const stored = await ctx.policies.getPolicy(ref);
  return { policy: checked(stored.policy, `stored policy ${stored.hash}`), from: "store" };
}

/** A policy read from a file or the store, checked (learner, version, content hash): `bad_policy` otherwise. */
function checked(saved: unknown, where: string): LearnerPolicy {
  try {
    return checkPolicy(saved as LearnerPolicy);
  } catch (err) {
    if (err instanceof ProvingError) throw configError("bad_policy", `${where}: ${err.message}`);
    throw err;
  }
}

/** `policy_mismatch` unless the policy is the named learner's. */
export function requireLearner(policy: LearnerPolicy, learner: LearnerId, spec: string): void {
  if (policy.learner !== learner)
    throw configError(
      "policy_mismatch",
      `${spec}: the policy ${policy.hash} is a ${policy.learner} policy, not ${learner}'s (use learner:${policy.learner === "learner.q@1" ? "q" : "pg"})`,
    );
}

/** The store's row of a policy: its hash, learner, version and history beside it, with provenance. */
export function storedPolicy(
  policy: LearnerPolicy,
  meta: { source: string; createdAt: string; experimentId?: string },
): StoredPolicy {
  return {
    hash: policy.hash,
    learner: policy.learner,
    version: policy.version,
    history: policy.history as unknown as JsonObject,
    ...(meta.experimentId !== undefined ? { experimentId: meta.experimentId } : {}),
    source: meta.source,
    createdAt: meta.createdAt,
    policy: policy as unknown as JsonObject,
  };
}

/** The learner kind's name of a policy's learner: `q` or `pg`. */
export function learnerKindOf(policy: LearnerPolicy): "q" | "pg" {
  return policy.learner === "learner.q@1" ? "q" : "pg";
}
