import { z } from "zod";
import { configError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";

/** One layer of a declarative variant: its id and params (plain JSON). */
export type LayerSpec = {
  id: string;
  params: JsonObject;
};

/** A declarative variant: a base world and its layers, innermost first (plain JSON or YAML). */
export type VariantSpec = {
  world: string;
  layers: LayerSpec[];
  /** Display name (not part of the id). */
  name?: string;
};

const layerSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9.-]*@\d+$/, "a layer id is name@version, e.g. rule.rate-limit@1"),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const variantSchema = z
  .object({
    world: z.string().min(1),
    layers: z.array(layerSchema).default([]),
    name: z.string().min(1).optional(),
  })
  .strict();

/**
 * Reads a variant as a user writes it: `{world, layers: [{id, params}], name?}`, or a bare world id
 * (the world with no layers). Params are not checked here (the harness does, per layer).
 */
export function readVariant(input: unknown, where = "variant"): VariantSpec {
  if (typeof input === "string") return { world: input, layers: [] };
  const parsed = variantSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.length ? `.${issue.path.join(".")}` : "";
    throw configError("bad_variant", `${where}${path}: ${issue.message}`);
  }
  const v = parsed.data;
  return {
    world: v.world,
    layers: v.layers.map((l) => ({ id: l.id, params: (l.params ?? {}) as JsonObject })),
    ...(v.name !== undefined ? { name: v.name } : {}),
  };
}

/**
 * The variant id: a hash of (base world id, layer ids with params, in order). The same stack always
 * has the same id; any change of order, layer or param gives another. The display name is not part of it.
 */
export function variantId(spec: VariantSpec): string {
  return `v-${hashJson({ world: spec.world, layers: spec.layers.map((l) => ({ id: l.id, params: l.params })) }, 16)}`;
}

/** A readable label: the name, else `world + layer + layer(params)`. */
export function variantLabel(spec: VariantSpec): string {
  if (spec.name) return spec.name;
  if (spec.layers.length === 0) return spec.world;
  const short = (l: LayerSpec) => l.id.replace(/^rule\./, "").replace(/@\d+$/, "");
  return `${spec.world} + ${spec.layers.map(short).join(" + ")}`;
}
