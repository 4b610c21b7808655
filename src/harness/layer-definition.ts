import type { z } from "zod";
import type { Environment } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { Layer } from "./layer.ts";

/** Where a layer is declared: the path messages name (`variant.layers[2]`) and the world it wraps. */
export interface LayerSite {
  where: string;
  world: string;
}

/**
 * One layer id the harness can build, all through the same interface: it describes itself, checks
 * and completes its params (the normalized params are what the variant id hashes), wraps an
 * environment, and rebuilds a saved layer around an environment already restored. `setup.replay@1`,
 * `link@1` and every rule are one each; the harness treats them alike.
 */
export interface LayerDefinition {
  readonly id: string;
  readonly description: string;
  /** Checks `params` and fills in their defaults; throws a config error naming `site.where`. */
  normalize(params: JsonObject, site: LayerSite): JsonObject;
  /** Wraps `inner` in a new layer with (normalized) params. */
  wrap(inner: Environment, params: JsonObject): Layer;
  /** The saved layer (`params`, its own `state`) around `inner`. */
  restore(inner: Environment, params: JsonObject, state: JsonValue): Layer;
}

/** Parses a layer's params with its schema; a bad one is `bad_layer_params`, naming where and which. */
export function parseLayerParams<T>(schema: z.ZodType<T>, params: JsonObject, id: string, where: string): T {
  const r = schema.safeParse(params);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw configError(
      "bad_layer_params",
      `${where} (${id}) params.${issue.path.join(".")}: ${issue.message}`,
    );
  }
  return r.data;
}
