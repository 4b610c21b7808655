/**
 * Environments we did not write: any OpenEnv-protocol server (`GET /metadata`, `GET /schema`,
 * episodes over the WebSocket at `/ws`: `reset`, `step`, `state`, `close` messages answered with
 * `{observation, reward, done}`), played as a core `Environment`.
 *
 * - Tools: an MCP-style server (its action schema names `call_tool`) lists them on `POST /mcp`
 *   (`tools/list`); its actions go out as `{type: "call_tool", tool_name, arguments}`. A typed server
 *   has one tool, `step`, whose arguments are the action its `/schema` declares, sent as is.
 * - Observations: the reset's becomes the task observation (its `instruction`, `prompt` or the whole
 *   observation as the instruction, the observation as context); a step's becomes a `tool_result`
 *   (`{ok: false}` when it carries an `error`, or when the server answers the step with a coded error).
 * - Outcome: there is no verifier; the verdict is judged from reward and done (`verifier: "reward-judged"`):
 *   passed when the episode ended with a positive total reward.
 * - Hidden state: a server may declare state fields an agent must never see (`hidden_state` in
 *   `/metadata`); each reset reads them (`state`) into the task's params, where `proving audit`
 *   looks for them in observations.
 */
import type {
  Action,
  Environment,
  EnvSpec,
  Observation,
  ResetOptions,
  StepResult,
  Task,
  ToolDescriptor,
  ToolResult,
  Verdict,
} from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { type ClientOptions, ServeClientError, WsEpisodeClient } from "./client.ts";
import { openGatedSession, SessionGate } from "./session-gate.ts";

/** How a foreign server takes actions: MCP tool calls, or the one typed action of its schema. */
export type ForeignActionShape = "call_tool" | "typed";

/** What a foreign server told about itself. */
export interface ForeignServer {
  url: string;
  /** Its `/metadata` (`{}` when it has none). */
  metadata: JsonObject;
  /** Its name (`/metadata` `name`, else `openenv`). */
  name: string;
  actionShape: ForeignActionShape;
  tools: ToolDescriptor[];
  /** State fields it declares hidden from agents (`/metadata` `hidden_state`). */
  hiddenState: string[];
}

/** The one tool of a typed server: its action, as `/schema` declares it. */
export const TYPED_TOOL = "step";

/** The verifier id of a reward-judged verdict: no verifier, judged from reward and done. */
export const REWARD_JUDGED = "reward-judged";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** One JSON request to the server; every failure is a coded `remote_*` error. */
async function requestJson(
  base: string,
  path: string,
  opts: ClientOptions,
  body?: JsonObject,
): Promise<{ status: number; data: unknown }> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: body ? "POST" : "GET",
      headers: {
        ...(body ? { "content-type": "application/json" } : {}),
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    throw new ServeClientError(
      timedOut ? "remote_timeout" : "remote_unreachable",
      `${path}: ${timedOut ? `no answer within ${timeoutMs} ms` : errorMessage(err)}`,
      { cause: err },
    );
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    if (res.ok) throw new ServeClientError("remote_bad_response", `${path}: the answer is not JSON`);
    data = {};
  }
  return { status: res.status, data };
}

async function getJson(base: string, path: string, opts: ClientOptions): Promise<JsonObject> {
  const { status, data } = await requestJson(base, path, opts);
  if (status >= 400)
    throw ServeClientError.fromReply(`GET ${path}: HTTP ${status}`, {
      status,
      data: isObject(data) ? data : {},
    });
  if (!isObject(data)) throw new ServeClientError("remote_bad_response", `GET ${path}: not a JSON object`);
  return data;
}

/** The tools of an MCP-style server: `tools/list` on `POST /mcp`. */
async function mcpTools(base: string, opts: ClientOptions): Promise<ToolDescriptor[]> {
  const { status, data } = await requestJson(base, "/mcp", opts, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: {},
  });
  const result = isObject(data) && isObject(data.result) ? data.result : undefined;
  if (status >= 400 || !result || !Array.isArray(result.tools))
    throw new ServeClientError(
      "remote_bad_response",
      `POST /mcp tools/list: no tool list (HTTP ${status}); an MCP-style server lists its tools there`,
    );
  return toolsOf(result.tools);
}

/** The tools of an MCP-style server without `POST /mcp`: a `list_tools` action in a short episode. */
async function listToolsAction(base: string, opts: ClientOptions): Promise<ToolDescriptor[]> {
  const session = await WsEpisodeClient.connect(base, opts);
  try {
    await session.reset({});
    const envelope = (await session.step({ type: "list_tools" } as never)) as unknown as JsonObject;
    const observation = isObject(envelope) ? envelope.observation : undefined;
    const tools = isObject(observation) ? observation.tools : undefined;
    if (!Array.isArray(tools))
      throw new ServeClientError(
        "remote_bad_response",
        "no tool list: neither POST /mcp tools/list nor a list_tools action answered one",
      );
    return toolsOf(tools);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** MCP tool entries (`{name, description, inputSchema}`) as our tool descriptors. */
function toolsOf(tools: JsonValue[]): ToolDescriptor[] {
  return tools.filter(isObject).map((t) => ({
    name: String(t.name),
    description: typeof t.description === "string" ? t.description : "",
    input_schema: isObject(t.inputSchema) ? t.inputSchema : isObject(t.input_schema) ? t.input_schema : {},
  }));
}

/** Reads a foreign server's metadata, action schema and tools. */
export async function probeForeign(url: string, opts: ClientOptions = {}): Promise<ForeignServer> {
  const base = trimSlash(url);
  const metadata = await getJson(base, "/metadata", opts).catch((err: unknown) => {
    if (err instanceof ServeClientError && err.status === 404) return {} as JsonObject;
    throw err;
  });
  const schema = await getJson(base, "/schema", opts);
  const action = isObject(schema.action) ? schema.action : undefined;
  if (!action) throw new ServeClientError("remote_bad_response", "GET /schema: no action schema (`action`)");
  const actionShape: ForeignActionShape = JSON.stringify(action).includes("call_tool")
    ? "call_tool"
    : "typed";
  const tools =
    actionShape === "call_tool"
      ? await mcpTools(base, opts).catch(() => listToolsAction(base, opts))
      : [
          {
            name: "step",
            description: String(action.description ?? action.title ?? "act"),
            input_schema: typed(action),
          },
        ];
  const hidden = metadata.hidden_state;
  return {
    url: base,
    metadata,
    name: typeof metadata.name === "string" && metadata.name ? metadata.name : "openenv",
    actionShape,
    tools,
    hiddenState: Array.isArray(hidden) ? hidden.filter((h): h is string => typeof h === "string") : [],
  };
}

/** A typed action's schema as tool arguments: without OpenEnv's bookkeeping `metadata` field. */
function typed(action: JsonObject): JsonObject {
  if (!isObject(action.properties)) return action;
  const { metadata: _, ...properties } = action.properties;
  return { ...action, properties };
}

/**
 * The text an agent reads as the task: the observation's instruction or prompt, else all of it
 * (nothing for an empty one: OpenEnv's echo env resets to `{}`).
 */
function instructionOf(observation: JsonValue): string {
  if (isObject(observation)) {
    for (const key of ["instruction", "prompt", "task", "question", "goal"])
      if (typeof observation[key] === "string") return observation[key] as string;
    if (Object.keys(observation).length === 0) return "";
  }
  return observation === null ? "" : JSON.stringify(observation);
}

/**
 * The server's error codes for a bad call (OpenEnv's MCP `invalid_args` and `tool_not_found`, the
 * wire's validation codes): our `invalid_argument`, the server's own code kept in the message.
 */
const BAD_CALL_CODES = new Set([
  "invalid_args",
  "tool_not_found",
  "VALIDATION_ERROR",
  "INVALID_JSON",
  "UNKNOWN_TYPE",
]);

function toolError(code: string, message: string): ToolResult {
  const ours = BAD_CALL_CODES.has(code) ? "invalid_argument" : code;
  return { ok: false, error: { code: ours, message: `[${code}] ${message}`, retryable: false } };
}

/** A step's observation as a tool result: `{ok: false}` when it carries an error. */
function toolResultOf(observation: JsonValue): ToolResult {
  const error = isObject(observation) ? observation.error : undefined;
  if (error !== undefined && error !== null) {
    const e = isObject(error) ? error : { message: String(error) };
    return toolError(String(e.error_type ?? e.code ?? "uncoded"), String(e.message ?? JSON.stringify(e)));
  }
  return { ok: true, observation };
}

export interface ForeignEnvironmentOptions extends ClientOptions {
  onOpened?: (env: ForeignEnvironment) => void;
  onClosed?: (env: ForeignEnvironment) => void;
  /** The sessions held on the server by every environment of this target (default: this one's own). */
  gate?: SessionGate;
}

/**
 * A core Environment over a foreign OpenEnv server, one WebSocket session per episode. Sessions are
 * held only while an episode is played (a server may take one at a time): `reset` opens one, reads
 * the start and closes it, so the runner's reference and probe instances (reset, hashed, dropped) pin
 * nothing; the first `step` opens the episode's session and resets again with the same seed; it
 * closes when the episode ends, on failure, and on `close()`.
 */
export class ForeignEnvironment implements Environment {
  readonly spec: EnvSpec;
  readonly capabilities = {};
  private session: WsEpisodeClient | undefined;
  /** Gives the session's slot back to the gate. */
  private release: (() => void) | undefined;
  /** Counts `close()` calls: a session that finishes opening after one is not wanted. */
  private epoch = 0;
  private readonly gate: SessionGate;
  private last: Observation | undefined;
  private steps = 0;
  private total = 0;
  private ended = false;
  private reset_ = false;
  private episodeId: string | undefined;
  /** What the latest reset sent (the first step resets again with it). */
  private resetData: JsonObject | undefined;

  constructor(
    readonly server: ForeignServer,
    spec: EnvSpec,
    private readonly opts: ForeignEnvironmentOptions = {},
  ) {
    this.spec = spec;
    this.gate = opts.gate ?? new SessionGate(opts.capacityWaitMs);
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    await this.close();
    this.steps = 0;
    this.total = 0;
    this.ended = false;
    this.reset_ = false;
    this.resetData = undefined;
    const data: JsonObject = { seed: opts.seed, ...(opts.episodeId ? { episode_id: opts.episodeId } : {}) };
    try {
      const { session, envelope } = await this.open(data);
      if (this.server.hiddenState.length) await this.readHidden(session, opts.task);
      await this.close();
      this.resetData = data;
      const observation = (envelope.observation ?? null) as JsonValue;
      this.episodeId =
        isObject(observation) && typeof observation.episode_id === "string"
          ? observation.episode_id
          : undefined;
      this.last = {
        kind: "task",
        instruction: instructionOf(observation),
        context: { observation },
        tools: this.spec.tools,
      };
      this.reset_ = true;
      return this.last;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Opens a session (when the gate has a slot) and resets it; a failed reset closes it. */
  private async open(data: JsonObject): Promise<{ session: WsEpisodeClient; envelope: JsonObject }> {
    const epoch = this.epoch;
    const opened = await openGatedSession(
      this.gate,
      this.server.url,
      this.opts,
      async (session) => {
        const envelope = (await session.reset(data as never)) as unknown as JsonObject;
        if (!isObject(envelope) || !("observation" in envelope))
          throw new ServeClientError("remote_bad_response", "reset: the answer has no observation");
        return envelope;
      },
      () => this.epoch !== epoch,
    );
    this.session = opened.session;
    this.release = opened.release;
    this.opts.onOpened?.(this);
    return { session: opened.session, envelope: opened.first };
  }

  /** The declared hidden state fields, copied into the task's params (where the audit looks for leaks). */
  private async readHidden(session: WsEpisodeClient, task: Task): Promise<void> {
    const state = (await session.state()) as unknown as JsonObject;
    if (!isObject(state)) return;
    for (const key of this.server.hiddenState) if (key in state) task.params[key] = state[key] as JsonValue;
  }

  private wire(action: Action): JsonObject {
    if (this.server.actionShape === "typed") return action.args;
    return { type: "call_tool", tool_name: action.tool, arguments: action.args };
  }

  async step(action: Action): Promise<StepResult> {
    if (!this.reset_) throw new ProvingError("not_reset", "foreign environment: step before reset");
    if (this.ended || !this.resetData)
      throw new ProvingError("remote_episode_ended", "foreign environment: the episode has ended");
    const session = this.session ?? (await this.open(this.resetData)).session;
    this.steps++;
    let result: ToolResult;
    let reward = 0;
    let done = false;
    let observation: JsonValue = null;
    try {
      if (this.server.actionShape === "typed" && action.tool !== TYPED_TOOL)
        throw new ServeClientError(
          "remote_validation_error",
          `no tool named ${JSON.stringify(action.tool.slice(0, 60))}: a typed server has one, ${TYPED_TOOL}`,
          { wireCode: "VALIDATION_ERROR" },
        );
      const envelope = (await session.step(this.wire(action) as never)) as unknown as JsonObject;
      if (!isObject(envelope) || !("observation" in envelope))
        throw new ServeClientError("remote_bad_response", "step: the answer has no observation");
      observation = (envelope.observation ?? null) as JsonValue;
      reward = typeof envelope.reward === "number" ? envelope.reward : 0;
      done = envelope.done === true;
      result = toolResultOf(observation);
    } catch (err) {
      // a refusal with a code is the call's answer; anything else (no code, transport) ends the session
      if (err instanceof ServeClientError && err.wireCode !== undefined && session.isOpen) {
        result = toolError(err.wireCode, err.message);
      } else {
        await this.close();
        throw err;
      }
    }
    this.total += reward;
    const obs: Observation = {
      kind: "tool_result",
      tool: action.tool,
      callId: action.callId,
      result,
      now: this.steps,
    };
    this.last = obs;
    if (done) {
      this.ended = true;
      await this.close();
    }
    return { observation: obs, reward, terminated: done, truncated: false, info: { now: this.steps } };
  }

  observe(): Observation {
    if (!this.last) throw new ProvingError("not_reset", "foreign environment: observe before reset");
    return this.last;
  }

  /** Judged from reward and done: passed when the episode ended with a positive total reward. */
  evaluate(): Verdict {
    if (!this.reset_) throw new ProvingError("not_reset", "foreign environment: evaluate before reset");
    const passed = this.ended && this.total > 0;
    return {
      passed,
      score: this.total,
      checks: [
        {
          name: "reward",
          passed,
          detail: `reward-judged: total reward ${this.total}${this.ended ? ", done" : ", not done"}`,
        },
      ],
      violations: [],
      verifier: REWARD_JUDGED,
    };
  }

  saveState(): JsonValue {
    return { foreign: this.server.url, episode_id: this.episodeId ?? null, steps: this.steps };
  }

  /** Closes the session (idempotent). */
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

/** The family every foreign task belongs to: the server chooses its task from the seed. */
export const FOREIGN_FAMILY = "default";
const FOREIGN_DIFFICULTIES = [1, 2, 3, 4, 5];

/**
 * A world definition for a foreign server, so the runner and the checker can play it: one family,
 * one difficulty, a task per seed (the server builds it), no scripted policies, reward-judged.
 */
export function foreignWorld(server: ForeignServer, create: () => Environment): WorldDefinition {
  const version = typeof server.metadata.version === "string" ? server.metadata.version : "0";
  const id = `${server.name}@${version}`;
  return {
    id,
    description: typeof server.metadata.description === "string" ? server.metadata.description : server.url,
    verifier: REWARD_JUDGED,
    // the server knows no difficulty: every one is the same task for a seed (runs ask for any)
    families: [
      {
        name: FOREIGN_FAMILY,
        description: "the server's own task for a seed",
        difficulties: FOREIGN_DIFFICULTIES,
      },
    ],
    generateTask(request): Task {
      const body = { world: id, family: request.family, difficulty: request.difficulty, seed: request.seed };
      return {
        id: `${server.name}-s${request.seed}`,
        world: id,
        family: request.family,
        difficulty: request.difficulty,
        tags: ["foreign"],
        params: { ...(request.params ?? {}) },
        split: request.split ?? "regression",
        seed: request.seed,
        instruction: "",
        generator: { template: `${id}/seed`, ranges: {}, contentHash: hashJson(body) },
      };
    },
    create,
    restore: () => {
      throw new ProvingError("capability_missing", "a foreign server's episodes cannot be restored");
    },
    policies: {},
    knownGood: "",
    expectedFailures: {},
    hiddenParams: server.hiddenState,
  };
}

export interface ForeignTarget {
  url: string;
  server: ForeignServer;
  world: WorldDefinition;
  /** Runner environment factory: each trial gets its own session. */
  environment: EnvironmentFactory;
  /** Closes the sessions of episodes that did not end. */
  close(): Promise<void>;
  /** The server's sessions, as a run's `TrialAdmission`: at most as many trials at once as it takes. */
  admission: SessionGate;
}

/** Connects to a foreign OpenEnv server: its tools, and a world and an environment factory to play it. */
export async function connectForeign(url: string, opts: ClientOptions = {}): Promise<ForeignTarget> {
  const server = await probeForeign(url, opts);
  const open = new Set<ForeignEnvironment>();
  const gate = new SessionGate(opts.capacityWaitMs);
  let world: WorldDefinition | undefined;
  const create = () =>
    new ForeignEnvironment(server, specOf(server, world?.id ?? server.name), {
      ...opts,
      gate,
      onOpened: (e) => open.add(e),
      onClosed: (e) => open.delete(e),
    });
  world = foreignWorld(server, create);
  const close = async () => {
    await Promise.all([...open].map((e) => e.close()));
    open.clear();
  };
  return { url: server.url, server, world, environment: () => create(), close, admission: gate };
}

function specOf(server: ForeignServer, id: string): EnvSpec {
  return { id, world: id, tools: server.tools, terminalTools: [], verifier: REWARD_JUDGED };
}

/** Whether `/metadata` is one of our own servers' for a world we know (else the server is foreign). */
export function isOwnServer(metadata: JsonObject, knowsWorld: (id: string) => boolean): boolean {
  return typeof metadata.world === "string" && Array.isArray(metadata.tools) && knowsWorld(metadata.world);
}

/** `/metadata` of a server, or `{}` when it has none (404). */
export async function serverMetadata(url: string, opts: ClientOptions = {}): Promise<JsonObject> {
  return getJson(trimSlash(url), "/metadata", opts).catch((err: unknown) => {
    if (err instanceof ServeClientError && err.status === 404) return {} as JsonObject;
    throw err;
  });
}
