import { ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { SavedEnvironment } from "../core/registry.ts";
import { HARNESS_STACK_TYPE, type LayerKind, type SavedLayer, type StackState } from "./layer.ts";

/** What a layer's registered factory restores from: everything below the layer, and the layer. */
export interface SavedLayerAbove {
  below: StackState;
  layer: SavedLayer;
}

const KINDS: readonly LayerKind[] = ["setup", "rule", "link"];

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function notSaved(what: string): never {
  throw new ProvingError("wrong_state_type", `${HARNESS_STACK_TYPE} cannot restore this state: ${what}`);
}

function savedEnvironment(v: JsonValue | undefined): SavedEnvironment {
  if (!isObject(v) || typeof v.type !== "string" || v.state === undefined) notSaved("no {type, state}");
  return { type: v.type, state: v.state };
}

function savedLayer(v: JsonValue | undefined): SavedLayer {
  if (!isObject(v)) return notSaved("a layer is not an object");
  const { kind, id, params, state } = v;
  const known = KINDS.find((k) => k === kind);
  if (!known || typeof id !== "string" || !isObject(params) || state === undefined)
    return notSaved("a layer has no {kind, id, params, state}");
  return { kind: known, id, params, state };
}

/** A saved stack (`harness.stack@1`'s state, `{env, layers}`) read back from JSON. */
export function readStackState(v: JsonValue | undefined): StackState {
  if (!isObject(v) || !Array.isArray(v.layers)) return notSaved("no {env, layers}");
  return { env: savedEnvironment(v.env), layers: v.layers.map(savedLayer) };
}

/** A layer factory's state (`{below, layer}`) read back from JSON. */
export function readSavedLayerAbove(v: JsonValue): SavedLayerAbove {
  if (!isObject(v)) return notSaved("no {below, layer}");
  return { below: readStackState(v.below), layer: savedLayer(v.layer) };
}

/** A saved stack as JSON (the state `harness.stack@1` restores). */
export function stackStateJson(s: StackState): JsonObject {
  return { env: { type: s.env.type, state: s.env.state }, layers: s.layers.map(savedLayerJson) };
}

/** A layer factory's state as JSON. */
export function savedLayerAboveJson(s: SavedLayerAbove): JsonObject {
  return { below: stackStateJson(s.below), layer: savedLayerJson(s.layer) };
}

function savedLayerJson(l: SavedLayer): JsonObject {
  return { kind: l.kind, id: l.id, params: l.params, state: l.state };
}
