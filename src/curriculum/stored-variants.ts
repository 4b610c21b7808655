import type { JsonValue } from "../core/json.ts";
import type { GymWorlds } from "./curriculum-gym.ts";
import type { SplitFile } from "./split-file.ts";

/** What `CurriculumStore.addVariant` takes. */
export interface VariantInput {
  /** The harness variant spec `{world, layers}`. */
  variant: JsonValue;
  /** Its id, `gym.harness.variantId(variant)`. */
  variantId: string;
  /** Where it came from (the rigger's record): any JSON. */
  provenance: JsonValue;
  /** Default `accepted`. */
  status?: "accepted" | "rejected";
  /** Default: the store's clock. */
  createdAt?: string;
}

/** A variant as the store keeps it. */
export interface StoredVariant {
  variantId: string;
  variant: JsonValue;
  provenance: JsonValue;
  status: "accepted" | "rejected";
  createdAt: string;
}

/**
 * The split file with the accepted stored variants added to its dynamic space (so a new curriculum run
 * samples them): variants already listed (dynamic or held out) are not added twice, held-out ones
 * never enter, a variant whose world is not among the dynamic worlds is skipped, and with
 * `requireReview` only the ids in `approved` enter. A run stores the split it started with, so
 * variants added later reach only later runs (a resume samples what it sampled before).
 */
export function splitWithVariants(
  split: SplitFile,
  variants: readonly StoredVariant[],
  gym: GymWorlds,
  opts: { requireReview?: boolean; approved?: ReadonlySet<string> } = {},
): SplitFile {
  const idOf = (v: JsonValue) => gym.harness.variantId(v);
  const listed = new Set([...(split.dynamic.variants ?? []), ...split.heldout.variants].map(idOf));
  const worlds = new Set(split.dynamic.worlds.map((w) => gym.world(w).id));
  const added: JsonValue[] = [];
  for (const v of variants) {
    if (v.status !== "accepted") continue;
    if (opts.requireReview && !opts.approved?.has(v.variantId)) continue;
    const id = idOf(v.variant);
    if (listed.has(id)) continue;
    if (!worlds.has(gym.world(gym.harness.normalize(v.variant).world).id)) continue;
    listed.add(id);
    added.push(v.variant);
  }
  if (added.length === 0) return split;
  return { ...split, dynamic: { ...split.dynamic, variants: [...(split.dynamic.variants ?? []), ...added] } };
}
