import { z } from "zod";
import type {
  Action,
  Environment,
  Observation,
  ReplayedStep,
  ResetOptions,
  StepResult,
} from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../core/json.ts";
import { Layer } from "./layer.ts";
import { type LayerDefinition, parseLayerParams } from "./layer-definition.ts";

export const SETUP_REPLAY_ID = "setup.replay@1";

/** Params of `setup.replay@1` (plain JSON, part of the variant id). */
export type SetupParams = {
  /** Tool calls replayed, in order, right after reset. */
  actions: { tool: string; args: JsonObject }[];
  /** Tell the agent what was done before it started (in the task context, as `setup`). Default true. */
  disclose?: boolean;
  /** A replayed call must succeed (`ok`), or may fail (`any`). Default `ok`. */
  expect?: "ok" | "any";
};

const setupSchema = z
  .object({
    actions: z
      .array(
        z
          .object({ tool: z.string().min(1), args: z.record(z.string(), z.custom<JsonValue>()).default({}) })
          .strict(),
      )
      .min(1),
    disclose: z.boolean().default(true),
    expect: z.enum(["ok", "any"]).default("ok"),
  })
  .strict();

/** `setup.replay@1`: its params checked (defaults filled in), a Setup layer built or restored. */
export const SETUP_REPLAY: LayerDefinition = {
  id: SETUP_REPLAY_ID,
  description: "replay a fixed list of actions after reset",
  normalize: (params, site) => parseLayerParams(setupSchema, params, SETUP_REPLAY_ID, site.where),
  wrap: (inner, params) => new SetupLayer(inner, params as SetupParams),
  restore: (inner, params, state) => SetupLayer.fromState(inner, params as SetupParams, state),
};

interface SetupState {
  steps: ReplayedStep[];
  last: Observation | null;
}

/**
 * A Setup layer: after reset, replays a fixed list of actions so the episode starts where the weakness
 * is. The replayed steps are part of the trace (`setupSteps()`, each with `info.setup = true`) but are
 * not agent steps; the agent's first observation is the task, with what was done disclosed in its context.
 */
export class SetupLayer extends Layer {
  private steps: ReplayedStep[] = [];

  constructor(
    inner: Environment,
    readonly params: SetupParams,
  ) {
    super(inner, { kind: "setup", id: SETUP_REPLAY_ID, params: cloneJson(params) });
  }

  static fromState(inner: Environment, params: SetupParams, state: JsonValue): SetupLayer {
    const layer = new SetupLayer(inner, params);
    const s = cloneJson(state) as unknown as SetupState;
    layer.steps = s.steps;
    layer.last = s.last ?? undefined;
    layer.lastReachedInner = true;
    return layer;
  }

  protected layerState(): JsonValue {
    return cloneJson({ steps: this.steps, last: this.last ?? null }) as unknown as JsonValue;
  }

  override setupSteps(): ReplayedStep[] {
    return [...super.setupSteps(), ...cloneJson(this.steps)];
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    this.steps = [];
    this.last = undefined;
    const first = await this.inner.reset(opts);
    for (const [i, a] of this.params.actions.entries()) {
      const action: Action = { tool: a.tool, args: cloneJson(a.args), callId: `setup-${i}` };
      const r = await this.inner.step(action);
      const result = r.observation.kind === "tool_result" ? r.observation.result : undefined;
      if (r.terminated || r.truncated) {
        throw configError(
          "setup_ended_episode",
          `${SETUP_REPLAY_ID}: replayed step ${i} (${a.tool}) ended the episode`,
        );
      }
      if ((this.params.expect ?? "ok") === "ok" && result && !result.ok) {
        throw configError(
          "setup_failed",
          `${SETUP_REPLAY_ID}: replayed step ${i} (${a.tool}) failed: ${result.error.code}: ${result.error.message}`,
        );
      }
      this.steps.push({ ...r, action, info: { ...r.info, setup: true } });
    }
    let obs = first;
    if (obs.kind === "task" && (this.params.disclose ?? true) && this.steps.length > 0) {
      const setup = this.steps.map((s) => ({
        tool: s.action.tool,
        args: s.action.args,
        result: s.observation.kind === "tool_result" ? s.observation.result : null,
      }));
      obs = { ...obs, context: { ...obs.context, setup: cloneJson(setup) as unknown as JsonValue } };
    }
    this.last = obs;
    this.lastReachedInner = true;
    return obs;
  }

  async step(action: Action): Promise<StepResult> {
    const r = await this.inner.step(action);
    this.last = cloneJson(r.observation);
    this.lastReachedInner = true;
    return r;
  }
}
