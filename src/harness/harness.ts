import type { Environment, TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry, SavedEnvironment, WorldDefinition } from "../core/registry.ts";
import { HARNESS_STACK_TYPE, Layer, type StackState, saveEnvironment } from "./layer.ts";
import type { LayerDefinition } from "./layer-definition.ts";
import { linkDefinition } from "./link-definition.ts";
import type { Handoff } from "./link-layer.ts";
import type { RuleDefinition } from "./rule.ts";
import { ruleLayerDefinition } from "./rule-layer.ts";
import {
  readSavedLayerAbove,
  readStackState,
  type SavedLayerAbove,
  savedLayerAboveJson,
  stackStateJson,
} from "./saved-stack.ts";
import { SETUP_REPLAY } from "./setup-layer.ts";
import { type LayerSpec, readVariant, type VariantSpec, variantId, variantLabel } from "./variant.ts";

/** A variant the runner plans trials for (same shape as the runner's `PlannedVariant`). */
export interface HarnessPlannedVariant {
  world: string;
  variant?: JsonValue;
  variantId?: string;
}

/**
 * The harness: a catalog of layer definitions (`setup.replay@1`, `link@1`, the rules it is given) and
 * hand-offs, and everything that turns declarative variants into environments. Every layer kind
 * checks, builds, describes and restores itself through one interface (`LayerDefinition`), so the
 * harness treats them alike. It registers a state factory for the stack (`harness.stack@1`) and for
 * every layer id in the registry, so a saved stacked variant restores through registered factories.
 * The gym builds one (`createGym`) with its rules and hand-offs.
 */
export class Harness {
  /** Every layer this harness can build, by id: setup and link first, then the rules in order. */
  private readonly definitions = new Map<string, LayerDefinition>();
  private readonly ruleIdList: string[] = [];
  private readonly handoffs = new Map<string, Handoff>();
  private readonly restoreSaved = (saved: SavedEnvironment): Environment => this.registry.restore(saved);

  constructor(
    readonly registry: Registry,
    // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
    opts: { rules?: readonly RuleDefinition<any>[]; handoffs?: readonly Handoff[] } = {},
  ) {
    registry.registerFactory(HARNESS_STACK_TYPE, (state) => this.restoreStack(readStackState(state)));
    this.define(SETUP_REPLAY);
    this.define(
      linkDefinition({
        world: (id) => this.registry.world(id),
        handoff: (id, where) => this.handoff(id, where),
        normalizeLayer: (layer, where, world) => this.normalizeLayer(layer, where, world),
        build: (variant) => this.build(variant),
        restore: this.restoreSaved,
      }),
    );
    for (const rule of opts.rules ?? []) this.registerRule(rule);
    for (const h of opts.handoffs ?? []) this.registerHandoff(h);
  }

  /** Adds a layer definition and the registry factory that restores its saved layers. */
  private define(def: LayerDefinition): void {
    this.definitions.set(def.id, def);
    this.registry.registerFactory(def.id, (state) => this.restoreLayer(readSavedLayerAbove(state)));
  }

  // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
  registerRule(def: RuleDefinition<any>): void {
    if (!/^rule\.[a-z0-9-]+@\d+$/.test(def.id))
      throw configError("bad_rule_id", `rule ids are rule.<name>@<version>, got ${def.id}`);
    if (this.definitions.has(def.id)) throw configError("duplicate_rule", `two rules have the id ${def.id}`);
    this.ruleIdList.push(def.id);
    this.define(ruleLayerDefinition(def, this.restoreSaved));
  }

  registerHandoff(h: Handoff): void {
    if (this.handoffs.has(h.id)) throw configError("duplicate_handoff", `two hand-offs have the id ${h.id}`);
    this.handoffs.set(h.id, h);
  }

  /** Layer ids this harness can build, with what they do. */
  layers(): { id: string; description: string }[] {
    return [...this.definitions.values()].map((d) => ({ id: d.id, description: d.description }));
  }

  ruleIds(): string[] {
    return [...this.ruleIdList];
  }

  handoffIds(): string[] {
    return [...this.handoffs.keys()];
  }

  // ---------------------------------------------------------------- declarative variants

  /** Reads and checks a variant; fills in every layer's default params (the id hashes the normalized spec). */
  normalize(input: unknown, where = "variant"): VariantSpec {
    const raw = readVariant(input, where);
    const world = this.registry.world(raw.world).id;
    const layers = raw.layers.map((l, i) => this.normalizeLayer(l, `${where}.layers[${i}]`, world));
    return { world, layers, ...(raw.name !== undefined ? { name: raw.name } : {}) };
  }

  private normalizeLayer(layer: LayerSpec, where: string, world: string): LayerSpec {
    const def = this.definitions.get(layer.id);
    if (!def) {
      throw configError(
        "unknown_layer",
        `${where}: unknown layer "${layer.id}" (known: ${this.layers()
          .map((l) => l.id)
          .join(", ")})`,
      );
    }
    return { id: layer.id, params: def.normalize(layer.params, { where, world }) };
  }

  private handoff(id: string, where: string): Handoff {
    const h = this.handoffs.get(id);
    if (!h)
      throw configError(
        "unknown_handoff",
        `${where}: unknown hand-off "${id}" (known: ${this.handoffIds().join(", ") || "none"})`,
      );
    return h;
  }

  variantId(input: unknown): string {
    return variantId(this.normalize(input));
  }

  label(input: unknown): string {
    return variantLabel(this.normalize(input));
  }

  /** Builds a variant: the base world, wrapped by its layers innermost first; the outermost carries the variant id. */
  build(input: unknown): Environment {
    const spec = this.normalize(input);
    let env: Environment = this.registry.world(spec.world).create();
    for (const layer of spec.layers) env = this.wrap(env, layer);
    if (env instanceof Layer) env.variantId = variantId(spec);
    return env;
  }

  /** Wraps `inner` in one (normalized) layer. */
  wrap(inner: Environment, layer: LayerSpec): Layer {
    const def = this.definitions.get(layer.id);
    if (!def) throw configError("unknown_layer", `unknown layer "${layer.id}"`);
    return def.wrap(inner, layer.params);
  }

  // ---------------------------------------------------------------- save and restore

  /** `{type, state}` for any environment: a stack as `harness.stack@1` (`{env, layers}`), a world by id. */
  save(env: Environment): SavedEnvironment {
    return saveEnvironment(env);
  }

  restore(saved: SavedEnvironment): Environment {
    return this.registry.restore(saved);
  }

  private restoreStack(state: StackState): Environment {
    const { env, layers } = state;
    if (layers.length === 0) return this.registry.restore(env);
    const top = layers[layers.length - 1];
    const below: StackState = { env, layers: layers.slice(0, -1) };
    const restored = this.registry.restore({
      type: top.id,
      state: savedLayerAboveJson({ below, layer: top }),
    });
    if (restored instanceof Layer && this.registry.hasWorld(env.type)) {
      restored.variantId = variantId({
        world: env.type,
        layers: layers.map((l) => ({ id: l.id, params: l.params })),
      });
    }
    return restored;
  }

  private restoreLayer(state: SavedLayerAbove): Environment {
    const { below, layer } = state;
    const inner =
      below.layers.length > 0
        ? this.registry.restore({ type: HARNESS_STACK_TYPE, state: stackStateJson(below) })
        : this.registry.restore(below.env);
    const def = this.definitions.get(layer.id);
    if (!def) throw configError("unknown_layer", `no rule "${layer.id}" to restore`);
    return def.restore(inner, layer.params, layer.state);
  }

  // ---------------------------------------------------------------- the runner's hooks

  /** `RunOptions.planVariants`: one planned variant per entry of `config.variants`. */
  planVariants = (config: { variants?: JsonValue[] }): HarnessPlannedVariant[] => {
    const seen = new Map<string, number>();
    return (config.variants ?? []).map((input, i) => {
      const spec = this.normalize(input, `variants[${i}]`);
      const id = variantId(spec);
      const twin = seen.get(id);
      if (twin !== undefined)
        throw configError(
          "duplicate_variant",
          `variants[${i}] is the same variant as variants[${twin}] (${id})`,
        );
      seen.set(id, i);
      return { world: spec.world, variant: spec, variantId: id };
    });
  };

  /** `RunOptions.environment`: the trial's variant, or the bare world. */
  environment = (spec: TrialSpec, world: WorldDefinition): Environment => {
    if (spec.variant === undefined) return world.create();
    const normalized = this.normalize(spec.variant, `trial ${spec.id} variant`);
    const id = variantId(normalized);
    if (spec.variantId !== undefined && spec.variantId !== id) {
      throw configError(
        "variant_mismatch",
        `trial ${spec.id}: variant id ${spec.variantId} does not match its layers (${id})`,
      );
    }
    if (normalized.world !== world.id) {
      throw configError(
        "variant_mismatch",
        `trial ${spec.id}: variant is of ${normalized.world}, trial of ${world.id}`,
      );
    }
    return this.build(normalized);
  };
}
