import { z } from "zod";
import type { Environment, TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { Registry, SavedEnvironment, WorldDefinition } from "../core/registry.ts";
import { HARNESS_STACK_TYPE, Layer, type SavedLayer, type StackState, saveEnvironment } from "./layer.ts";
import { type Handoff, LINK_ID, LinkLayer, type LinkParams } from "./link-layer.ts";
import type { RuleDefinition } from "./rule.ts";
import { RuleLayer } from "./rule-layer.ts";
import { SETUP_REPLAY_ID, SetupLayer, type SetupParams } from "./setup-layer.ts";
import { type LayerSpec, readVariant, type VariantSpec, variantId, variantLabel } from "./variant.ts";

/** A variant the runner plans trials for (same shape as the runner's `PlannedVariant`). */
export interface HarnessPlannedVariant {
  world: string;
  variant?: JsonValue;
  variantId?: string;
}

const setupSchema = z
  .object({
    actions: z
      .array(
        z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}) }).strict(),
      )
      .min(1),
    disclose: z.boolean().default(true),
    expect: z.enum(["ok", "any"]).default("ok"),
  })
  .strict();

const layerSpecSchema = z
  .object({ id: z.string().min(1), params: z.record(z.string(), z.unknown()).default({}) })
  .strict();

const linkSchema = z
  .object({
    world: z.string().min(1),
    family: z.string().min(1),
    difficulty: z.number().int().min(1).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    handoff: z.string().min(1),
    layers: z.array(layerSpecSchema).optional(),
  })
  .strict();

/** State a layer's registered factory restores from: everything below it, and itself. */
interface LayerFactoryState {
  below: StackState;
  layer: SavedLayer;
}

/**
 * The harness: a catalog of layers (the rules it is given, `setup.replay@1`, `link@1`) and hand-offs,
 * and everything that turns declarative variants into environments. It registers a state factory for
 * the stack (`harness.stack@1`) and for every layer id in the registry, so a saved stacked variant
 * restores through registered factories. The gym builds one (`createGym`) with its rules and hand-offs.
 */
export class Harness {
  // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
  private readonly rules = new Map<string, RuleDefinition<any>>();
  private readonly handoffs = new Map<string, Handoff>();

  constructor(
    readonly registry: Registry,
    // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
    opts: { rules?: readonly RuleDefinition<any>[]; handoffs?: readonly Handoff[] } = {},
  ) {
    for (const rule of opts.rules ?? []) this.registerRule(rule);
    for (const h of opts.handoffs ?? []) this.registerHandoff(h);
    registry.registerFactory(HARNESS_STACK_TYPE, (state) =>
      this.restoreStack(state as unknown as StackState),
    );
    registry.registerFactory(SETUP_REPLAY_ID, (state) =>
      this.restoreLayer(state as unknown as LayerFactoryState),
    );
    registry.registerFactory(LINK_ID, (state) => this.restoreLayer(state as unknown as LayerFactoryState));
  }

  // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
  registerRule(def: RuleDefinition<any>): void {
    if (!/^rule\.[a-z0-9-]+@\d+$/.test(def.id))
      throw configError("bad_rule_id", `rule ids are rule.<name>@<version>, got ${def.id}`);
    if (this.rules.has(def.id)) throw configError("duplicate_rule", `two rules have the id ${def.id}`);
    this.rules.set(def.id, def);
    this.registry.registerFactory(def.id, (state) =>
      this.restoreLayer(state as unknown as LayerFactoryState),
    );
  }

  registerHandoff(h: Handoff): void {
    if (this.handoffs.has(h.id)) throw configError("duplicate_handoff", `two hand-offs have the id ${h.id}`);
    this.handoffs.set(h.id, h);
  }

  /** Layer ids this harness can build, with what they do. */
  layers(): { id: string; description: string }[] {
    return [
      { id: SETUP_REPLAY_ID, description: "replay a fixed list of actions after reset" },
      { id: LINK_ID, description: "run a task of another world after this one (hand-off of data)" },
      ...[...this.rules.values()].map((r) => ({ id: r.id, description: r.description })),
    ];
  }

  ruleIds(): string[] {
    return [...this.rules.keys()];
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
    const parse = <T>(schema: z.ZodType<T>): T => {
      const r = schema.safeParse(layer.params);
      if (!r.success) {
        const issue = r.error.issues[0];
        throw configError(
          "bad_layer_params",
          `${where} (${layer.id}) params.${issue.path.join(".")}: ${issue.message}`,
        );
      }
      return r.data;
    };
    if (layer.id === SETUP_REPLAY_ID)
      return { id: layer.id, params: parse(setupSchema) as unknown as JsonObject };
    if (layer.id === LINK_ID) {
      const p = parse(linkSchema) as LinkParams;
      const b = this.registry.world(p.world);
      if (!b.families.some((f) => f.name === p.family)) {
        throw configError("unknown_family", `${where}: ${b.id} has no family "${p.family}"`);
      }
      const handoff = this.handoff(p.handoff, where);
      if (handoff.from !== world || handoff.to !== b.id) {
        throw configError(
          "bad_handoff",
          `${where}: ${handoff.id} links ${handoff.from} → ${handoff.to}, not ${world} → ${b.id}`,
        );
      }
      const layers = (p.layers ?? []).map((l, i) =>
        this.normalizeLayer(
          { id: l.id, params: (l.params ?? {}) as JsonObject },
          `${where}.params.layers[${i}]`,
          b.id,
        ),
      );
      return {
        id: layer.id,
        params: { ...p, world: b.id, ...(p.layers ? { layers } : {}) } as unknown as JsonObject,
      };
    }
    const def = this.rules.get(layer.id);
    if (!def) {
      throw configError(
        "unknown_layer",
        `${where}: unknown layer "${layer.id}" (known: ${this.layers()
          .map((l) => l.id)
          .join(", ")})`,
      );
    }
    return { id: layer.id, params: parse(def.params) as JsonObject };
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
    if (layer.id === SETUP_REPLAY_ID) return new SetupLayer(inner, layer.params as unknown as SetupParams);
    if (layer.id === LINK_ID) {
      const p = layer.params as unknown as LinkParams;
      return new LinkLayer(inner, p, this.linkDeps(p));
    }
    const def = this.rules.get(layer.id);
    if (!def) throw configError("unknown_layer", `unknown layer "${layer.id}"`);
    return new RuleLayer(inner, def.create(layer.params), (saved) => this.registry.restore(saved));
  }

  private linkDeps(p: LinkParams) {
    const b: WorldDefinition = this.registry.world(p.world);
    return {
      b,
      createB: () => (p.layers?.length ? this.build({ world: b.id, layers: p.layers }) : b.create()),
      handoff: this.handoff(p.handoff, LINK_ID),
      restore: (saved: SavedEnvironment) => this.registry.restore(saved),
    };
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
      state: { below, layer: top } as unknown as JsonValue,
    });
    if (restored instanceof Layer && this.registry.hasWorld(env.type)) {
      restored.variantId = variantId({
        world: env.type,
        layers: layers.map((l) => ({ id: l.id, params: l.params })),
      });
    }
    return restored;
  }

  private restoreLayer(state: LayerFactoryState): Environment {
    const { below, layer } = state;
    const inner =
      below.layers.length > 0
        ? this.registry.restore({ type: HARNESS_STACK_TYPE, state: below as unknown as JsonValue })
        : this.registry.restore(below.env);
    if (layer.id === SETUP_REPLAY_ID)
      return SetupLayer.fromState(inner, layer.params as unknown as SetupParams, layer.state);
    if (layer.id === LINK_ID) {
      const p = layer.params as unknown as LinkParams;
      return LinkLayer.fromState(inner, p, this.linkDeps(p), layer.state);
    }
    const def = this.rules.get(layer.id);
    if (!def) throw configError("unknown_layer", `no rule "${layer.id}" to restore`);
    return RuleLayer.fromState(inner, def.create(layer.params), layer.state, (saved) =>
      this.registry.restore(saved),
    );
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
      return { world: spec.world, variant: spec as unknown as JsonValue, variantId: id };
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
