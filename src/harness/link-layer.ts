import type {
  Action,
  AdmissibleActions,
  Environment,
  EnvSpec,
  Observation,
  ResetOptions,
  StepResult,
  Task,
  Verdict,
} from "../core/contracts.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { Job } from "../core/scheduler.ts";
import { combineVerdicts } from "./combine-verdicts.ts";
import { Layer, saveEnvironment } from "./layer.ts";
import type { Restore } from "./rule-layer.ts";

export const LINK_ID = "link@1";

/** What world A hands to world B. Pure: reads A's final state (view) and task, never a verdict. */
export interface Handoff {
  /** `handoff.<name>@<version>`. */
  id: string;
  description: string;
  /** World ids it connects (A → B). */
  from: string;
  to: string;
  take(a: { task: Task; view: Readonly<JsonObject> }): HandoffResult;
}

export type HandoffResult =
  | { ok: true; params: JsonObject; context: JsonObject }
  | { ok: false; reason: string };

/** Params of `link@1` (plain JSON, part of the variant id). */
export type LinkParams = {
  /** World B, `name@version`. */
  world: string;
  family: string;
  /** Default: task A's difficulty. */
  difficulty?: number;
  /** Extra task params for B's generator (the hand-off's params win). */
  params?: JsonObject;
  /** Registered hand-off id. */
  handoff: string;
  /** Layers around world B (a variant of B), innermost first. */
  layers?: { id: string; params?: JsonObject }[];
};

export interface LinkDeps {
  b: WorldDefinition;
  /** Builds B's environment (the bare world or a variant of it). */
  createB: () => Environment;
  handoff: Handoff;
  /** Restores a saved B environment. */
  restore: Restore;
}

type Stage = "a" | "b" | "done";

interface LinkState {
  stage: Stage;
  taskA: Task | null;
  seed: number;
  episode: string;
  /** Calls made in A (offset of B's violation steps). */
  stepsA: number;
  /** A's virtual time when B started (B's clock is shifted by it). */
  offset: number;
  taskB: Task | null;
  b: { type: string; state: JsonValue } | null;
  missing: string | null;
  last: Observation | null;
}

/**
 * A Link layer: runs a task of world B after the task of world A in one episode. When A's episode
 * ends, the declared hand-off turns A's final state into B's task params; the agent's next observation
 * is B's task (with the hand-off and A's last reply in its context). The verdict is A.passed AND
 * B.passed with both verifiers' checks and violations; each world is judged by its own frozen verifier.
 */
export class LinkLayer extends Layer {
  private s: LinkState = LinkLayer.empty();
  private envB: Environment | undefined;

  constructor(
    inner: Environment,
    readonly params: LinkParams,
    private readonly deps: LinkDeps,
  ) {
    super(inner, { kind: "link", id: LINK_ID, params: cloneJson(params) });
  }

  private static empty(): LinkState {
    return {
      stage: "a",
      taskA: null,
      seed: 0,
      episode: "",
      stepsA: 0,
      offset: 0,
      taskB: null,
      b: null,
      missing: null,
      last: null,
    };
  }

  static fromState(inner: Environment, params: LinkParams, deps: LinkDeps, state: JsonValue): LinkLayer {
    const layer = new LinkLayer(inner, params, deps);
    layer.s = cloneJson(state) as unknown as LinkState;
    layer.envB = layer.s.b ? deps.restore(layer.s.b) : undefined;
    layer.last = layer.s.last ?? undefined;
    return layer;
  }

  get stage(): Stage {
    return this.s.stage;
  }

  get taskB(): Task | undefined {
    return this.s.taskB ?? undefined;
  }

  override get spec(): EnvSpec {
    const a = this.inner.spec;
    const tools = this.envB ? this.envB.spec.tools : a.tools;
    return {
      id: this.variantId ?? `${a.id}+${LINK_ID}`,
      world: a.world,
      tools,
      // the terminal tools of the part being played (A's end its part; B's end the episode)
      terminalTools: this.envB ? this.envB.spec.terminalTools : a.terminalTools,
      verifier: `${a.verifier}+${this.deps.b.verifier}`,
    };
  }

  protected layerState(): JsonValue {
    const s: LinkState = {
      ...this.s,
      b: this.envB ? saveEnvironment(this.envB) : null,
      last: this.last ?? null,
    };
    return cloneJson(s) as unknown as JsonValue;
  }

  protected override hashedState(): JsonValue {
    return {
      stage: this.s.stage,
      stepsA: this.s.stepsA,
      offset: this.s.offset,
      taskB: this.s.taskB?.id ?? null,
      b: this.envB ? (this.envB.capabilities.inspection?.stateHash() ?? null) : null,
      missing: this.s.missing,
    };
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    this.s = LinkLayer.empty();
    this.envB = undefined;
    this.s.taskA = cloneJson(opts.task);
    this.s.seed = opts.seed;
    this.s.episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    const obs = await this.inner.reset(opts);
    this.last = obs;
    return obs;
  }

  async step(action: Action): Promise<StepResult> {
    if (this.s.stage === "b" && this.envB) return this.stepB(action);
    if (this.s.stage === "done") {
      const now = this.now();
      const observation: Observation = {
        kind: "tool_result",
        tool: String(action?.tool),
        callId: action?.callId,
        result: {
          ok: false,
          error: { code: "episode_ended", message: "the episode has ended", retryable: false },
        },
        now,
      };
      this.last = observation;
      return { observation, reward: 0, terminated: false, truncated: false, info: { now } };
    }
    const r = await this.inner.step(action);
    this.s.stepsA++;
    this.last = cloneJson(r.observation);
    if (!r.terminated) return r;
    // A is over: hand off to B
    const taskA = this.s.taskA!;
    const handed = this.deps.handoff.take({ task: taskA, view: cloneJson(this.innerInspection().view()) });
    if (!handed.ok) {
      this.s.stage = "done";
      this.s.missing = `hand-off ${this.deps.handoff.id}: ${handed.reason}`;
      return { ...r, info: { ...r.info, verdict: this.evaluate() } };
    }
    const p = this.params;
    const taskB = this.deps.b.generateTask({
      family: p.family,
      difficulty: p.difficulty ?? taskA.difficulty,
      seed: taskA.seed,
      params: { ...(p.params ?? {}), ...handed.params },
      split: taskA.split,
    });
    const envB = this.deps.createB();
    const first = await envB.reset({ task: taskB, seed: this.s.seed, episodeId: this.s.episode });
    this.envB = envB;
    this.s.taskB = taskB;
    this.s.stage = "b";
    this.s.offset = r.info.now;
    const previous =
      r.observation.kind === "tool_result"
        ? { tool: r.observation.tool, result: r.observation.result }
        : null;
    const observation: Observation =
      first.kind === "task"
        ? {
            ...first,
            context: {
              ...first.context,
              handoff: handed.context,
              previous: previous as unknown as JsonValue,
            },
          }
        : first;
    this.last = observation;
    return {
      observation,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { now: this.s.offset, link: { stage: "b", from: taskA.world, to: taskB.world, task: taskB.id } },
    };
  }

  private async stepB(action: Action): Promise<StepResult> {
    const r = await this.envB!.step(action);
    const shift = this.s.offset;
    const observation: Observation =
      r.observation.kind === "tool_result"
        ? { ...r.observation, now: r.observation.now + shift }
        : r.observation;
    let info = { ...r.info, now: r.info.now + shift };
    if (r.terminated || r.truncated) {
      this.s.stage = "done";
      info = { ...info, verdict: this.evaluate() };
    }
    this.last = observation;
    return { ...r, observation, info };
  }

  override delivered(observation: Observation): void {
    this.last = cloneJson(observation);
    (this.envB ?? this.inner).capabilities.delivery?.delivered(observation);
  }

  /** A.passed AND B.passed; both verifiers' checks and violations (B's steps offset by A's calls). */
  override evaluate(): Verdict {
    const a = this.inner.spec;
    return combineVerdicts([
      { world: a.world, verifier: a.verifier, verdict: this.inner.evaluate(), stepOffset: 0 },
      {
        world: this.deps.b.id,
        verifier: this.deps.b.verifier,
        stepOffset: this.s.stepsA,
        ...(this.envB ? { verdict: this.envB.evaluate() } : {}),
        missing: this.s.missing ?? `${this.deps.b.id} was never reached (task A did not end)`,
      },
    ]);
  }

  override view(): Readonly<JsonObject> {
    const b = this.envB?.capabilities.inspection;
    if (!b) return this.innerInspection().view();
    const v = b.view() as JsonObject;
    return { ...v, now: (typeof v.now === "number" ? v.now : 0) + this.s.offset, link_stage: this.s.stage };
  }

  override pendingJobs(): readonly Job[] {
    const a = this.innerInspection().pendingJobs();
    const b = this.envB?.capabilities.inspection;
    return b ? [...a, ...b.pendingJobs()] : a;
  }

  override leakedJobs(): number {
    return this.innerInspection().leakedJobs() + (this.envB?.capabilities.inspection?.leakedJobs() ?? 0);
  }

  /** Time control of the part being played (B once it started). */
  protected override timeControl() {
    return (this.envB ?? this.inner).capabilities.timeControl;
  }
  /** Stage A's admissible actions, then stage B's once the hand-off built it. */
  protected override admissibleInner(): AdmissibleActions | undefined {
    return (this.envB ?? this.inner).capabilities.admissible;
  }
}
