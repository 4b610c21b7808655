import type { Kysely, Selectable } from "kysely";
import { ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { PoliciesTable, StoreDatabase } from "./schema.ts";

/**
 * A learner's policy as the store keeps it (the `policies` table, migration `policies`): keyed by its
 * content hash, with the learner that plays it (`learner.q@1`), the policy format's version, its
 * training history, where it came from and when. The store reads none of it: `policy` is the plain
 * JSON the learner saved (src/learners checks and restores it).
 */
export interface StoredPolicy {
  /** The policy's content hash (its `hash` field). */
  hash: string;
  /** Which learner plays it: `learner.q@1`, `learner.pg@1`. */
  learner: string;
  /** The policy format's version. */
  version: number;
  /** Its training history (episodes, updates, passes...). */
  history: JsonObject;
  /** The experiment or curriculum run that trained it, if any. */
  experimentId?: string;
  /** What saved it: `run` (the end of a run), `checkpoint@N` (a curriculum snapshot), `import` (a file). */
  source: string;
  /** ISO timestamp, supplied by the caller (its injected clock). */
  createdAt: string;
  /** The whole policy, plain JSON. */
  policy: JsonObject;
}

/** A stored policy without its (possibly large) parameters: what a listing shows. */
export type PolicySummary = Omit<StoredPolicy, "policy">;

/** The part of the store that keeps learners' policies (the Store implements it). */
export interface PolicyStore {
  /**
   * Saves a policy under its hash. Content-addressed: a policy already stored (the same hash) is left
   * as it is, provenance included; returns whether this call inserted it.
   */
  savePolicy(policy: StoredPolicy): Promise<boolean>;
  /**
   * The policy whose hash is `id` or starts with it (at least `MIN_POLICY_PREFIX` characters):
   * `unknown_policy` when none is, `ambiguous_policy` when several are.
   */
  getPolicy(id: string): Promise<StoredPolicy>;
  /** Every stored policy, oldest first (by creation time, then hash), without its parameters. */
  listPolicies(): Promise<PolicySummary[]>;
  /**
   * Deletes the policies an experiment saved with a source starting with `sourcePrefix` (a curriculum
   * run's `checkpoint@`), except those whose hash is in `keep`; returns how many. Rows another
   * experiment saved first (the same content) are not the experiment's, and stay.
   */
  dropPolicies(experimentId: string, sourcePrefix: string, keep: readonly string[]): Promise<number>;
}

/** The shortest hash prefix a policy may be named by. */
export const MIN_POLICY_PREFIX = 4;

const HASH_PREFIX = /^[0-9a-f]+$/;

export function summaryFromRow(row: Omit<Selectable<PoliciesTable>, "policy">): PolicySummary {
  return {
    hash: row.hash,
    learner: row.learner,
    version: Number(row.version),
    history: JSON.parse(row.history),
    ...(row.experiment_id != null ? { experimentId: row.experiment_id } : {}),
    source: row.source,
    createdAt: row.created_at,
  };
}

export function policyFromRow(row: Selectable<PoliciesTable>): StoredPolicy {
  return { ...summaryFromRow(row), policy: JSON.parse(row.policy) };
}

export async function insertPolicy(trx: Kysely<StoreDatabase>, p: StoredPolicy): Promise<boolean> {
  if (typeof p.hash !== "string" || !HASH_PREFIX.test(p.hash) || p.hash.length < MIN_POLICY_PREFIX)
    throw new ProvingError(
      "bad_policy",
      `a policy's hash must be lowercase hex (got ${JSON.stringify(p.hash)})`,
    );
  const result = await trx
    .insertInto("policies")
    .values({
      hash: p.hash,
      learner: p.learner,
      version: p.version,
      history: JSON.stringify(p.history),
      experiment_id: p.experimentId ?? null,
      source: p.source,
      created_at: p.createdAt,
      policy: JSON.stringify(p.policy),
    })
    .onConflict((oc) => oc.column("hash").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The policy named by a hash or a unique prefix of one (see `PolicyStore.getPolicy`). */
export async function findPolicy(db: Kysely<StoreDatabase>, id: string): Promise<StoredPolicy> {
  const prefix = id.trim().toLowerCase();
  if (!HASH_PREFIX.test(prefix) || prefix.length < MIN_POLICY_PREFIX)
    throw new ProvingError(
      "unknown_policy",
      `"${id}" is not a policy id: a policy is named by its hash or a prefix of at least ${MIN_POLICY_PREFIX} hex characters (\`proving policies\` lists them)`,
      { details: { id } },
    );
  const rows = await db
    .selectFrom("policies")
    .selectAll()
    .where("hash", "like", `${prefix}%`)
    .limit(5)
    .execute();
  if (rows.length === 0)
    throw new ProvingError(
      "unknown_policy",
      `no policy ${prefix} in the store (\`proving policies\` lists them)`,
      { details: { id: prefix } },
    );
  const exact = rows.find((r) => r.hash === prefix);
  if (exact) return policyFromRow(exact);
  if (rows.length > 1)
    throw new ProvingError(
      "ambiguous_policy",
      `policy id ${prefix} names ${rows.length === 5 ? "5 or more" : rows.length} policies (${rows.map((r) => r.hash).join(", ")}): give more of the hash`,
      { details: { id: prefix, matches: rows.map((r) => r.hash) } },
    );
  return policyFromRow(rows[0]);
}

export async function listPolicyRows(db: Kysely<StoreDatabase>): Promise<PolicySummary[]> {
  const rows = await db
    .selectFrom("policies")
    .select(["hash", "learner", "version", "history", "experiment_id", "source", "created_at"])
    .execute();
  // sorted here, not by `order by`: text order follows the database's collation (see CurriculumStore)
  rows.sort((a, b) =>
    a.created_at !== b.created_at ? (a.created_at < b.created_at ? -1 : 1) : a.hash < b.hash ? -1 : 1,
  );
  return rows.map(summaryFromRow);
}

export async function deletePolicies(
  trx: Kysely<StoreDatabase>,
  experimentId: string,
  sourcePrefix: string,
  keep: readonly string[],
): Promise<number> {
  const rows = await trx
    .selectFrom("policies")
    .select(["hash", "source"])
    .where("experiment_id", "=", experimentId)
    .execute();
  // compared here, not with `like`: a prefix may hold the pattern characters `%` and `_`
  const drop = rows
    .filter((r) => r.source.startsWith(sourcePrefix) && !keep.includes(r.hash))
    .map((r) => r.hash);
  if (!drop.length) return 0;
  await trx.deleteFrom("policies").where("hash", "in", drop).execute();
  return drop.length;
}
