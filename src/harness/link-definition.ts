import { z } from "zod";
import type { Environment } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { type LayerDefinition, parseLayerParams } from "./layer-definition.ts";
import { type Handoff, LINK_ID, type LinkDeps, LinkLayer, type LinkParams } from "./link-layer.ts";
import type { Restore } from "./rule-layer.ts";
import type { LayerSpec } from "./variant.ts";

/** What `link@1` needs of the harness: world B, the hand-offs, B's own layers, restoring B. */
export interface LinkServices {
  world(id: string): WorldDefinition;
  handoff(id: string, where: string): Handoff;
  /** Normalizes one of B's layers (declared at `where`, wrapping `world`). */
  normalizeLayer(layer: LayerSpec, where: string, world: string): LayerSpec;
  /** Builds a variant as a user writes it (normalized first). */
  build(variant: unknown): Environment;
  restore: Restore;
}

const jsonObject = z.record(z.string(), z.custom<JsonValue>());

const linkSchema = z
  .object({
    world: z.string().min(1),
    family: z.string().min(1),
    difficulty: z.number().int().min(1).optional(),
    params: jsonObject.optional(),
    handoff: z.string().min(1),
    layers: z.array(z.object({ id: z.string().min(1), params: jsonObject.default({}) }).strict()).optional(),
  })
  .strict();

/**
 * `link@1`: its params checked (world B's family exists, the hand-off links the wrapped world to B,
 * B's own layers normalized), and a Link layer built or restored with world B and the hand-off.
 */
export function linkDefinition(services: LinkServices): LayerDefinition {
  const deps = (p: LinkParams): LinkDeps => {
    const b = services.world(p.world);
    return {
      b,
      createB: () => (p.layers?.length ? services.build({ world: b.id, layers: p.layers }) : b.create()),
      handoff: services.handoff(p.handoff, LINK_ID),
      restore: services.restore,
    };
  };
  return {
    id: LINK_ID,
    description: "run a task of another world after this one (hand-off of data)",
    normalize(params, { where, world }) {
      const p = parseLayerParams(linkSchema, params, LINK_ID, where);
      const b = services.world(p.world);
      if (!b.families.some((f) => f.name === p.family)) {
        throw configError("unknown_family", `${where}: ${b.id} has no family "${p.family}"`);
      }
      const handoff = services.handoff(p.handoff, where);
      if (handoff.from !== world || handoff.to !== b.id) {
        throw configError(
          "bad_handoff",
          `${where}: ${handoff.id} links ${handoff.from} → ${handoff.to}, not ${world} → ${b.id}`,
        );
      }
      const layers = (p.layers ?? []).map((l, i) =>
        services.normalizeLayer({ id: l.id, params: l.params }, `${where}.params.layers[${i}]`, b.id),
      );
      return { ...p, world: b.id, ...(p.layers ? { layers } : {}) };
    },
    wrap(inner, params) {
      const p = params as LinkParams;
      return new LinkLayer(inner, p, deps(p));
    },
    restore(inner, params, state) {
      const p = params as LinkParams;
      return LinkLayer.fromState(inner, p, deps(p), state);
    },
  };
}
