import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import { Rng } from "../core/rng.ts";
import type { CurriculumGym } from "./curriculum-gym.ts";
import type { CurriculumHistory } from "./history.ts";
import { runSpecs } from "./run-specs.ts";
import { plannedSpecs } from "./split-specs.ts";
import type { StoredVariant } from "./stored-variants.ts";

/** The pool id under which reviews of stored variants are kept. */
export const VARIANT_POOL = "variants";

/** One item of the spot-check queue: a pooled task or a stored variant, with what a reviewer needs to judge it. */
export interface ReviewItem {
  kind: "task" | "variant";
  /** `world/family/dN#seed` for a task, the variant id for a variant. */
  id: string;
  instruction?: string;
  params?: JsonValue;
  /** The known-good policy's trajectory (tool calls, in order). */
  knownGood: string[];
  /** The variant spec and its provenance (variants only). */
  variant?: JsonValue;
  provenance?: JsonValue;
  /** The decision recorded so far, if any. */
  decision?: { decision: "approve" | "reject"; note: string; reviewedAt: string };
}

/** Up to `sample` items, drawn without replacement by `seed` among those not reviewed yet (all unreviewed when absent). */
export function sampleItems(
  items: readonly ReviewItem[],
  opts: { sample?: number; seed?: number } = {},
): ReviewItem[] {
  const open = items.filter((i) => !i.decision);
  if (opts.sample === undefined) return open;
  return Rng.seeded(opts.seed ?? 1, "curriculum.review")
    .shuffle(open)
    .slice(0, opts.sample);
}

/** The accepted tasks of a pool as review items (with the decisions recorded so far). */
export async function taskReviewItems(history: CurriculumHistory, poolId: string): Promise<ReviewItem[]> {
  const decided = new Map((await history.reviews(poolId)).map((r) => [r.item_id, r]));
  return (await history.tasks(poolId, "accepted")).map((row) => {
    const task = row.task ? (JSON.parse(row.task) as { instruction: string; params: JsonValue }) : undefined;
    const d = decided.get(row.item_id);
    return {
      kind: "task",
      id: row.item_id,
      ...(task ? { instruction: task.instruction, params: task.params } : {}),
      knownGood: row.known_good ? (JSON.parse(row.known_good) as { actions: string[] }).actions : [],
      ...(d ? { decision: decisionOf(d) } : {}),
    };
  });
}

/** Accepted stored variants as review items; `knownGood(v)` gives the known-good trajectory on the variant. */
export async function variantReviewItems(
  history: CurriculumHistory,
  variants: readonly StoredVariant[],
  knownGood: (v: StoredVariant) => Promise<{ instruction: string; actions: string[] }>,
): Promise<ReviewItem[]> {
  const decided = new Map((await history.reviews(VARIANT_POOL)).map((r) => [r.item_id, r]));
  const out: ReviewItem[] = [];
  for (const v of variants) {
    if (v.status !== "accepted") continue;
    const d = decided.get(v.variantId);
    const run = d ? { instruction: "", actions: [] } : await knownGood(v);
    out.push({
      kind: "variant",
      id: v.variantId,
      instruction: run.instruction,
      knownGood: run.actions,
      variant: v.variant,
      provenance: v.provenance,
      ...(d ? { decision: decisionOf(d) } : {}),
    });
  }
  return out;
}

function decisionOf(r: { decision: string; note: string; reviewed_at: string }): ReviewItem["decision"] {
  return { decision: r.decision as "approve" | "reject", note: r.note, reviewedAt: r.reviewed_at };
}

/**
 * Records a decision on an item of the pool (`VARIANT_POOL` for variants); a later decision replaces
 * an earlier one. `unknown_review_item` when the id is not among `known`.
 */
export async function recordReview(
  history: CurriculumHistory,
  poolId: string,
  itemId: string,
  decision: "approve" | "reject",
  opts: { note?: string; now: () => Date; known: ReadonlySet<string> },
): Promise<void> {
  if (!opts.known.has(itemId))
    throw configError("unknown_review_item", `nothing to review with id ${itemId} in pool ${poolId}`);
  await history.saveReview({
    run_id: poolId,
    item_id: itemId,
    decision,
    note: opts.note ?? "",
    reviewed_at: opts.now().toISOString(),
  });
}

/** Approved item ids of a pool, decided at or before `asOf` (ISO time; default: any time). */
export async function approvedItems(
  history: Pick<CurriculumHistory, "reviews">,
  poolId: string,
  asOf?: string,
): Promise<Set<string>> {
  return new Set(
    (await history.reviews(poolId))
      .filter((r) => r.decision === "approve" && (asOf === undefined || r.reviewed_at <= asOf))
      .map((r) => r.item_id),
  );
}

/** The terminal text of one item. */
export function renderItem(item: ReviewItem): string {
  const lines = [`${item.kind} ${item.id}`];
  if (item.instruction) lines.push(`  instruction: ${item.instruction}`);
  if (item.params !== undefined) lines.push(`  params: ${JSON.stringify(item.params)}`);
  if (item.variant !== undefined) lines.push(`  variant: ${JSON.stringify(item.variant)}`);
  if (item.provenance !== undefined) lines.push(`  provenance: ${JSON.stringify(item.provenance)}`);
  lines.push(`  known-good trajectory: ${item.knownGood.join(" → ") || "(none)"}`);
  if (item.decision)
    lines.push(
      `  reviewed: ${item.decision.decision} (${item.decision.note || "no note"}) at ${item.decision.reviewedAt}`,
    );
  return lines.join("\n");
}

/**
 * The known-good policy's trajectory on a variant: one task of the variant's world (its first family
 * at its lowest difficulty, seed 1), played through the harness. What `curriculum review --variants` shows.
 */
export async function variantKnownGood(
  gym: Pick<CurriculumGym, "world" | "harness" | "runOptions">,
  v: StoredVariant,
): Promise<{ instruction: string; actions: string[]; outcome: string }> {
  const world = gym.world(gym.harness.normalize(v.variant).world);
  const family = world.families[0];
  const key = {
    world: world.id,
    variant: gym.harness.variantId(v.variant),
    family: family.name,
    difficulty: family.difficulties[0],
  };
  const ref = { id: world.knownGood, kind: "scripted", spec: world.knownGood };
  const [spec] = plannedSpecs([{ key, variant: v.variant, seed: 1 }], {
    experimentId: "curriculum-review",
    agent: ref,
    budget: { maxSteps: 200, wallTimeoutMs: 60_000 },
    split: "dynamic",
  });
  const options = gym.runOptions();
  const [record] = await runSpecs([spec], {
    registry: options.registry,
    environment: options.environment,
    agent: { ref, forWorld: (w) => w.policies[w.knownGood] },
  });
  return {
    instruction: record.task?.instruction ?? "",
    actions: record.steps.filter((s) => !s.setup).map((s) => s.action.tool),
    outcome: record.outcome,
  };
}
