import type {
  Action,
  AdmissibleAction,
  AdmissibleActions,
  AdmissibleCanonicalForm,
  Environment,
  EnvironmentCapabilities,
  EnvSpec,
  Observation,
  ResetOptions,
  StepInfo,
  StepResult,
  ToolDescriptor,
  TrialSpec,
  Verdict,
} from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { configError, ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { canonicalAdmissible } from "../worlds/shared/admissible-actions.ts";
import { type ClientOptions, type RemoteMetadata, ServeClient, type WsEpisodeClient } from "./client.ts";
import type { ResetParams, StepEnvelope } from "./protocol.ts";
import { openGatedSession, SessionGate } from "./session-gate.ts";

/** Metadata keys that are wire bookkeeping rather than step info. */
const WIRE_KEYS = new Set([
  "episode_id",
  "step_count",
  "terminated",
  "truncated",
  "request_id",
  "admissible_actions",
]);

export interface RemoteEnvironmentOptions extends ClientOptions {
  /** Told when a remote session is opened and closed (to close what a stopped trial left open). */
  onOpened?: (env: RemoteEnvironment) => void;
  onClosed?: (env: RemoteEnvironment) => void;
  /**
   * The server declares admissible actions (`capabilities.admissible_actions` in `/metadata`): the
   * environment then declares them too. Each reset asks for the list; steps ask for it once the
   * agent has asked (the runner asks before each act of an agent that `usesAdmissibleActions`).
   */
  admissible?: boolean;
  /** The sessions held on the server by every environment of this target (default: this one's own). */
  gate?: SessionGate;
}

/**
 * An Environment that lives on a `proving serve` (or any OpenEnv-style) server. The remote server
 * builds the task from (family, difficulty, seed); reset checks it built the same task the runner
 * generated. The verdict comes from the remote verifier on the step that ends the episode; a trial
 * that stops early (budget, agent error) has no verdict to report.
 *
 * Sessions are held only while an episode is being played: `reset` opens a WS session, reads the
 * start (observation, state hash) and closes it, so the runner's reference and probe instances
 * (reset, hashed, dropped) never pin a remote slot. The first `step` opens the session for good,
 * resets again with the same (task, seed, episode id) and checks the remote start state is the same,
 * then plays; the session closes when the episode ends (or on `close()`).
 */
export class RemoteEnvironment implements Environment, AdmissibleActions {
  readonly spec: EnvSpec;
  /**
   * Admissible actions when the server declares them; nothing else: the state, its jobs and its
   * clock live on the server, and layers run there. The runner reports the clean-start and
   * after-episode checks of a remote trial as not checkable.
   */
  readonly capabilities: EnvironmentCapabilities;
  /** The admissible actions of the latest reply that carried them (undefined: not asked for it). */
  private admissible: AdmissibleAction[] | undefined;
  /** How the server's world spells actions (`metadata.admissible_canonical`), if it said. */
  private form: AdmissibleCanonicalForm | undefined;
  /** The agent asked for the admissible actions: every step asks the server for them. */
  private wantsAdmissible = false;
  private session: WsEpisodeClient | undefined;
  /** Gives the session's slot back to the gate. */
  private release: (() => void) | undefined;
  /** Counts `close()` calls: a session that finishes opening after one is not wanted. */
  private epoch = 0;
  private readonly gate: SessionGate;
  private resetParams: ResetParams | undefined;
  private last: Observation | undefined;
  private hash = "";
  private verdict: Verdict | undefined;
  private info: StepInfo = { now: 0 };
  private episodeId: string | undefined;
  private steps = 0;
  private ended = false;
  private taskId = "";

  constructor(
    readonly url: string,
    spec: EnvSpec,
    private readonly opts: RemoteEnvironmentOptions = {},
  ) {
    this.spec = spec;
    this.capabilities = opts.admissible ? { admissible: this } : {};
    this.gate = opts.gate ?? new SessionGate(opts.capacityWaitMs);
  }

  /** The admissible actions the server answered with the latest observation. */
  admissibleActions(): AdmissibleAction[] {
    this.wantsAdmissible = true;
    const list = this.admissible;
    if (!list) {
      throw new ProvingError(
        "capability_missing",
        "remote environment: the admissible actions of this observation were not asked for",
      );
    }
    return list;
  }

  /** How the world spells `action` against the latest list (as the server's world would). */
  canonicalAction(action: { tool: string; args: JsonObject }): AdmissibleAction {
    const form = this.form;
    return form
      ? canonicalAdmissible(action, this.admissible ?? [], form)
      : { tool: action.tool, args: action.args };
  }

  canonicalForm(): AdmissibleCanonicalForm | undefined {
    return this.form;
  }

  /** The list a reply carries (`metadata.admissible_actions`), kept for `admissibleActions()`. */
  private keepAdmissible(envelope: StepEnvelope): void {
    const list = envelope.metadata.admissible_actions;
    this.admissible = Array.isArray(list) ? (list as unknown as AdmissibleAction[]) : undefined;
    this.form = canonicalFormFrom(envelope.metadata.admissible_canonical) ?? this.form;
  }

  /** Opens a session (when the gate has a slot) and resets it; a failed reset closes it. */
  private async open(params: ResetParams, taskId: string): Promise<StepEnvelope> {
    const epoch = this.epoch;
    const opened = await openGatedSession(
      this.gate,
      this.url,
      this.opts,
      (session) => session.reset(params),
      () => this.epoch !== epoch,
    );
    this.session = opened.session;
    this.release = opened.release;
    this.opts.onOpened?.(this);
    const envelope = opened.first;
    const remoteTask = envelope.metadata.task_id;
    if (remoteTask !== undefined && remoteTask !== taskId) {
      await this.close();
      throw new ProvingError(
        "remote_task_mismatch",
        `the remote server built task ${String(remoteTask)}, not ${taskId} (different world version?)`,
      );
    }
    return envelope;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    await this.close();
    this.verdict = undefined;
    this.steps = 0;
    this.ended = false;
    this.info = { now: 0 };
    const params: ResetParams = {
      seed: opts.seed,
      family: opts.task.family,
      difficulty: opts.task.difficulty,
      ...(opts.episodeId !== undefined ? { episode_id: opts.episodeId } : {}),
      ...(this.opts.admissible ? { admissible: true } : {}),
    };
    const envelope = await this.open(params, opts.task.id);
    await this.close();
    this.keepAdmissible(envelope);
    this.resetParams = params;
    this.taskId = opts.task.id;
    this.episodeId =
      typeof envelope.metadata.episode_id === "string" ? envelope.metadata.episode_id : undefined;
    this.hash = typeof envelope.metadata.state_hash === "string" ? envelope.metadata.state_hash : "";
    this.last = envelope.observation;
    return envelope.observation;
  }

  /** The live session; the first step of an episode opens it and checks the start is the one reset saw. */
  private async live(): Promise<WsEpisodeClient> {
    if (this.session) return this.session;
    if (!this.resetParams) {
      throw new ProvingError("not_reset", "remote environment: step before reset");
    }
    if (this.ended) {
      throw new ProvingError("remote_episode_ended", "remote environment: the episode has ended");
    }
    const envelope = await this.open(this.resetParams, this.taskId);
    const hash = typeof envelope.metadata.state_hash === "string" ? envelope.metadata.state_hash : "";
    if (hash !== this.hash) {
      await this.close();
      throw new ProvingError(
        "remote_not_deterministic",
        `the remote server started the same task and seed in a different state (${hash} vs ${this.hash})`,
      );
    }
    return this.session as unknown as WsEpisodeClient;
  }

  async step(action: Action): Promise<StepResult> {
    const session = await this.live();
    const envelope: StepEnvelope = await session.step(
      { tool: action.tool, args: action.args, callId: action.callId },
      this.wantsAdmissible ? { admissible: true } : {},
    );
    this.keepAdmissible(envelope);
    this.steps++;
    const meta = envelope.metadata;
    const info: StepInfo = { now: typeof meta.now === "number" ? meta.now : this.info.now };
    for (const [k, v] of Object.entries(meta)) if (!WIRE_KEYS.has(k) && k !== "now") info[k] = v as JsonValue;
    const terminated = meta.terminated === true || (envelope.done && meta.truncated !== true);
    const truncated = meta.truncated === true;
    if (info.verdict) this.verdict = info.verdict as Verdict;
    this.info = info;
    this.last = envelope.observation;
    if (terminated || truncated) {
      this.ended = true;
      await this.close();
    }
    return { observation: envelope.observation, reward: envelope.reward ?? 0, terminated, truncated, info };
  }

  observe(): Observation {
    if (!this.last) throw new ProvingError("not_reset", "remote environment: observe before reset");
    return this.last;
  }

  evaluate(): Verdict {
    if (this.verdict) return this.verdict;
    throw new ProvingError(
      "remote_no_verdict",
      "the remote verifier gives its verdict only on the step that ends the episode",
    );
  }

  saveState(): JsonValue {
    return { remote: this.url, episode_id: this.episodeId ?? null, steps: this.steps };
  }

  /** Closes the remote session (idempotent). */
  async close(): Promise<void> {
    this.epoch++;
    const s = this.session;
    const release = this.release;
    this.session = undefined;
    this.release = undefined;
    if (s) {
      await s.close().catch(() => undefined);
      release?.();
      this.opts.onClosed?.(this);
    }
  }
}

/**
 * What a request to the server must stay within, in the checker's terms (`CheckOptions`): the
 * largest action as JSON, the longest string, the deepest nesting of an action's arguments.
 */
export interface RemoteLimits {
  maxActionBytes: number;
  maxStringLength: number;
  maxDepth: number;
}

/** Room left in a message for what wraps the action (`{"type":"step","data":…}`, `{"action":…,"episode_id":…}`). */
const ENVELOPE_BYTES = 1024;
/** Levels above an action's `args` in a message: the message and its `data` (or `action`) object. */
const ENVELOPE_DEPTH = 2;

const positiveInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;

/**
 * The limits a server declares in `/metadata` (`limits: {max_body_bytes, max_json_depth,
 * max_string_length}`), as the action limits of its messages; undefined when it declares none.
 */
export function limitsFromMetadata(meta: RemoteMetadata): RemoteLimits | undefined {
  const l = meta.limits;
  if (typeof l !== "object" || l === null || Array.isArray(l)) return undefined;
  const { max_body_bytes: body, max_json_depth: depth, max_string_length: chars } = l;
  if (!positiveInt(body) || !positiveInt(depth) || !positiveInt(chars)) return undefined;
  return {
    maxActionBytes: Math.max(1, body - ENVELOPE_BYTES),
    maxStringLength: chars,
    maxDepth: Math.max(1, depth - ENVELOPE_DEPTH),
  };
}

export interface RemoteTarget {
  url: string;
  metadata: RemoteMetadata;
  /** The limits the server declares (pass them to `checkEnvironment` / `auditEnvironment`), if any. */
  limits: RemoteLimits | undefined;
  /** The base world the server serves. */
  world: string;
  spec: EnvSpec;
  /** Runner environment factory: each trial gets its own remote session. */
  environment: EnvironmentFactory;
  /** Closes the sessions of trials that stopped before their episode ended. */
  close(): Promise<void>;
  /** The server's sessions, as a run's `TrialAdmission`: at most as many trials at once as it takes. */
  admission: SessionGate;
}

/** The `capabilities` a server declares in `/metadata` (an older server declares none). */
function capabilitiesOf(meta: RemoteMetadata): Record<string, unknown> {
  const c = meta.capabilities;
  return typeof c === "object" && c !== null && !Array.isArray(c) ? c : {};
}

/** The EnvSpec a remote server describes in `/metadata`. */
export function specFromMetadata(meta: RemoteMetadata): EnvSpec {
  return {
    id: String(meta.environment ?? meta.name),
    world: String(meta.world ?? meta.name),
    tools: (meta.tools ?? []) as unknown as ToolDescriptor[],
    terminalTools: (meta.terminal_tools ?? []) as string[],
    verifier: String(meta.verifier ?? ""),
  };
}

/**
 * Connects to a remote server (reads `/metadata` once) and returns a runner environment factory.
 * Each trial gets its own remote session while it plays; `close()` ends the sessions of trials that
 * stopped before their episode ended (budget, agent error).
 *
 * @example
 * ```ts
 * const remote = await connectRemote("http://127.0.0.1:8000", { token: process.env.PROVING_REMOTE_TOKEN });
 * const report = await checkEnvironment(remote.environment, { world: deviceSupport, dispose: (env) => env.close() });
 * ```
 */
export async function connectRemote(url: string, opts: ClientOptions = {}): Promise<RemoteTarget> {
  const client = new ServeClient(url, opts);
  const metadata = await client.metadata();
  const spec = specFromMetadata(metadata);
  const open = new Set<RemoteEnvironment>();
  const gate = new SessionGate(opts.capacityWaitMs);
  const environment: EnvironmentFactory = (_trial: TrialSpec, world: WorldDefinition) => {
    if (world.id !== spec.world) {
      throw configError("remote_world_mismatch", `the remote server serves ${spec.world}, not ${world.id}`);
    }
    return new RemoteEnvironment(client.baseUrl, spec, {
      ...opts,
      admissible: capabilitiesOf(metadata).admissible_actions === true,
      gate,
      onOpened: (e) => open.add(e),
      onClosed: (e) => open.delete(e),
    });
  };
  const close = async () => {
    await Promise.all([...open].map((e) => e.close()));
    open.clear();
  };
  const limits = limitsFromMetadata(metadata);
  return {
    url: client.baseUrl,
    metadata,
    limits,
    world: spec.world,
    spec,
    environment,
    close,
    admission: gate,
  };
}

/** `metadata.admissible_canonical` (`{key_args, texts}`) as a form; anything else is none. */
function canonicalFormFrom(value: JsonValue | undefined): AdmissibleCanonicalForm | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { key_args: keyArgs, texts } = value;
  if (!Array.isArray(keyArgs) || !keyArgs.every((k) => typeof k === "string")) return undefined;
  if (typeof texts !== "object" || texts === null || Array.isArray(texts)) return undefined;
  if (!Object.values(texts).every((t) => typeof t === "string")) return undefined;
  return { keyArgs: keyArgs as string[], texts: texts as Record<string, string> };
}
