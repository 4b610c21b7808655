/**
 * A TypeScript client for the `proving serve` protocol (OpenEnv-compatible): HTTP with per-episode
 * sessions, and WebSocket with one session per connection.
 */
import WebSocket from "ws";
import { callerFaulted, type ErrorCode, isWireErrorCode, WIRE_ERRORS } from "../core/error-catalogue.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { worldResetObservation } from "../protocol/openenv-observations.ts";
import type { GroupDoc } from "./groups.ts";
import type { EpisodeStateDoc, ResetParams, StepEnvelope, WireAction, WsServerMessage } from "./protocol.ts";

/** The ProvingError codes of a client talking to a server: `remote_*`. */
export type RemoteErrorCode = Extract<ErrorCode, `remote_${string}`>;

/**
 * The code of a server's error reply. The status decides whose fault it is: a 4xx is the caller's
 * (the catalogue's code for the wire code, config or agent as its meaning says), anything else the
 * infrastructure's. A WebSocket reply has no status of its own: it is the catalogue's status of its
 * wire code. A wire code the catalogue does not know (or answered with a status of the other class)
 * is `remote_rejected` (4xx) or `remote_server_error`.
 */
export function remoteErrorCode(wireCode: string | undefined, status: number | undefined): RemoteErrorCode {
  const known = wireCode !== undefined && isWireErrorCode(wireCode) ? WIRE_ERRORS[wireCode] : undefined;
  const effective = status ?? known?.status;
  const callers = effective !== undefined && callerFaulted(effective);
  if (known && callerFaulted(known.status) === callers) return known.remote;
  return callers ? "remote_rejected" : "remote_server_error";
}

/** WebSocket close 1009: the server refused a message as too big. */
const WS_MESSAGE_TOO_BIG = 1009;

/**
 * A failed call to a `proving serve` server: its error reply (`wireCode` is the server's code, e.g.
 * `CAPACITY_REACHED`, `status` the HTTP status), or a failure with no reply (`wireCode` undefined:
 * unreachable, timed out, connection closed, an unreadable reply). `code` and `fault` are the
 * catalogue's `remote_*` entry.
 */
export class ServeClientError extends ProvingError<RemoteErrorCode> {
  readonly wireCode: string | undefined;
  readonly status: number | undefined;
  readonly data: JsonObject;

  constructor(
    code: RemoteErrorCode,
    message: string,
    opts: { wireCode?: string; status?: number; data?: JsonObject; cause?: unknown } = {},
  ) {
    super(code, message, { cause: opts.cause, details: opts.data });
    this.name = "ServeClientError";
    this.wireCode = opts.wireCode;
    this.status = opts.status;
    this.data = opts.data ?? {};
  }

  /** A server's error reply (`data` is its body, or the `data` of a WS `error` message). */
  static fromReply(message: string, reply: { status?: number; data?: JsonObject }): ServeClientError {
    const data = reply.data ?? {};
    const wireCode = typeof data.code === "string" ? data.code : undefined;
    return new ServeClientError(remoteErrorCode(wireCode, reply.status), message, {
      ...(wireCode !== undefined ? { wireCode } : {}),
      ...(reply.status !== undefined ? { status: reply.status } : {}),
      data,
    });
  }
}

export interface ClientOptions {
  /** Bearer token, when the server was started with one. */
  token?: string;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /**
   * How long opening an episode's session may wait for a slot when the server is at capacity, in ms
   * (`connectRemote`, `connectForeign`: their `SessionGate`). Default 0: the refusal is thrown at once.
   */
  capacityWaitMs?: number;
}

export interface RemoteMetadata extends JsonObject {
  name: string;
  world: string;
  environment: string;
  verifier: string;
  tools: JsonObject[];
  terminal_tools: string[];
}

/** One step of a batch: an episode and its action (`admissible`: ask for the list in its reply). */
export interface BatchStep {
  episode_id: string;
  action: WireAction;
  admissible?: boolean;
}

/** A batch entry's answer: the step's envelope under its episode id, or that entry's own error. */
export type BatchResult =
  | (StepEnvelope & { episode_id: string; error?: undefined })
  | { episode_id: string; error: { code: string; message: string } };

/** Episodes opened at once (a group reset, a fork), each under its own id. */
export interface OpenedEpisodes {
  /** A group reset's id (`GET /group`). */
  group_id?: string;
  episodes: (StepEnvelope & { episode_id: string })[];
}

export interface StepOptions {
  requestId?: string;
  timeoutS?: number;
  /** Ask for the admissible actions (the reply's `metadata.admissible_actions`). */
  admissible?: boolean;
}

/** A reset reply with the world's own observation (`worldResetObservation`). */
function worldReset(envelope: StepEnvelope): StepEnvelope {
  return { ...envelope, observation: worldResetObservation(envelope.observation) };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** HTTP client: `reset` opens (or restarts) an episode and returns its `episode_id` in `metadata`. */
export class ServeClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(baseUrl: string, opts: ClientOptions = {}) {
    this.baseUrl = trimSlash(baseUrl);
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  private async request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      throw new ServeClientError(
        timedOut ? "remote_timeout" : "remote_unreachable",
        `${method} ${path}: ${timedOut ? `no reply within ${this.timeoutMs} ms` : errorMessage(err)}`,
        { cause: err },
      );
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const data = (
        parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {}
      ) as JsonObject;
      const code = typeof data.code === "string" ? data.code : `HTTP ${res.status}`;
      const message = typeof data.message === "string" ? data.message : text.slice(0, 200);
      throw ServeClientError.fromReply(`${method} ${path}: ${message} [${code}]`, {
        status: res.status,
        data,
      });
    }
    if (parsed === undefined)
      throw new ServeClientError("remote_bad_response", `${method} ${path}: not JSON`);
    return parsed as T;
  }

  health(): Promise<{ status: string }> {
    return this.request("GET", "/health");
  }

  metadata(): Promise<RemoteMetadata> {
    return this.request("GET", "/metadata");
  }

  schema(): Promise<{ action: JsonObject; observation: JsonObject; state: JsonObject }> {
    return this.request("GET", "/schema");
  }

  async reset(params: ResetParams = {}): Promise<StepEnvelope> {
    return worldReset(await this.request<StepEnvelope>("POST", "/reset", params));
  }

  step(episodeId: string, action: WireAction, opts: StepOptions = {}): Promise<StepEnvelope> {
    return this.request("POST", "/step", {
      action,
      episode_id: episodeId,
      ...(opts.requestId !== undefined ? { request_id: opts.requestId } : {}),
      ...(opts.timeoutS !== undefined ? { timeout_s: opts.timeoutS } : {}),
      ...(opts.admissible ? { admissible: true } : {}),
    });
  }

  state(episodeId: string): Promise<EpisodeStateDoc> {
    return this.request("GET", `/state?episode_id=${encodeURIComponent(episodeId)}`);
  }

  /** `n` episodes on the identical task (a group reset), each its own HTTP episode. */
  resetGroup(params: ResetParams, n: number): Promise<OpenedEpisodes> {
    return this.request("POST", "/reset", { ...params, group: n });
  }

  /** Steps of many episodes in one request (<= 256), answered in order. */
  async stepBatch(steps: BatchStep[]): Promise<BatchResult[]> {
    return (await this.request<{ results: BatchResult[] }>("POST", "/step_batch", { steps })).results;
  }

  /** `n` new episodes continuing `episodeId` from its current state. */
  fork(episodeId: string, n: number): Promise<OpenedEpisodes> {
    return this.request("POST", "/fork", { episode_id: episodeId, n });
  }

  /** How a group's members ended. */
  group(groupId: string): Promise<GroupDoc> {
    return this.request("GET", `/group?group_id=${encodeURIComponent(groupId)}`);
  }

  close(episodeId: string): Promise<{ closed: boolean }> {
    return this.request("POST", "/close", { episode_id: episodeId });
  }
}

interface Pending {
  resolve(message: WsServerMessage): void;
  reject(err: Error): void;
}

/**
 * WebSocket client: one connection is one session. Requests are answered in order, so several can
 * be in flight at once.
 */
export class WsEpisodeClient {
  private readonly pending: Pending[] = [];
  private closedError: Error | undefined;
  private notice: JsonObject | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly timeoutMs: number,
  ) {
    ws.on("message", (data) => {
      let message: WsServerMessage | undefined;
      let bad: unknown;
      try {
        message = JSON.parse(data.toString()) as WsServerMessage;
      } catch (err) {
        bad = err;
      }
      const waiter = this.pending.shift();
      if (!waiter) {
        // unsolicited: the server refusing the session (capacity) or reclaiming it (idle)
        if (message?.type === "error") this.notice = message.data as JsonObject;
        return;
      }
      if (message) waiter.resolve(message);
      else
        waiter.reject(
          new ServeClientError("remote_bad_response", `unparseable message: ${errorMessage(bad)}`),
        );
    });
    ws.on("close", (code, reason) => {
      const why = `connection closed (${code}${reason.length ? `: ${reason.toString()}` : ""})`;
      this.closedError = this.noticeError(why, code);
      for (const p of this.pending.splice(0)) p.reject(this.closedError);
    });
    ws.on("error", () => undefined);
  }

  /**
   * Why the connection is unusable: the server's parting error (capacity, idle) when it sent one; a
   * message refused as too big (close 1009) when it closed for that; otherwise a closed connection.
   */
  private noticeError(why: string, closeCode?: number): ServeClientError {
    const notice = this.notice;
    const data: JsonObject = closeCode === undefined ? {} : { close_code: closeCode };
    if (notice) {
      return ServeClientError.fromReply(`${String(notice.message)}; ${why}`, {
        data: { ...notice, ...data },
      });
    }
    if (closeCode === WS_MESSAGE_TOO_BIG) {
      return new ServeClientError(
        "remote_payload_too_large",
        `the server refused a message as too big; ${why}`,
        {
          data,
        },
      );
    }
    return new ServeClientError("remote_connection_closed", why, { data });
  }

  /** Opens a session. A server at capacity answers with a `CAPACITY_REACHED` error, thrown here. */
  static async connect(baseUrl: string, opts: ClientOptions = {}): Promise<WsEpisodeClient> {
    const url = `${trimSlash(baseUrl).replace(/^http/, "ws")}/ws`;
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    const timeoutMs = opts.timeoutMs ?? 60_000;
    // listen before the socket opens: a refusal (capacity) can arrive in the same packet as the upgrade
    const client = new WsEpisodeClient(ws, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new ServeClientError("remote_timeout", `connect ${url}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.once("open", () => {
        clearTimeout(timer);
        resolve();
      });
      ws.once("unexpected-response", (_req, res) => {
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          let data: JsonObject = {};
          try {
            data = JSON.parse(Buffer.concat(chunks).toString()) as JsonObject;
          } catch {
            // not JSON
          }
          if (typeof data !== "object" || data === null || Array.isArray(data)) data = {};
          const code = typeof data.code === "string" ? data.code : `HTTP ${res.statusCode}`;
          reject(
            ServeClientError.fromReply(
              `connect ${url}: ${res.statusCode} ${res.statusMessage ?? ""} [${code}]`,
              {
                ...(res.statusCode !== undefined ? { status: res.statusCode } : {}),
                data,
              },
            ),
          );
        });
      });
      ws.once("error", (err) => {
        clearTimeout(timer);
        reject(new ServeClientError("remote_unreachable", `connect ${url}: ${err.message}`, { cause: err }));
      });
    });
    return client;
  }

  private async request(message: JsonObject): Promise<WsServerMessage> {
    if (this.closedError) throw this.closedError;
    if (this.ws.readyState !== WebSocket.OPEN) throw this.noticeError("connection not open");
    let timer: NodeJS.Timeout | undefined;
    const reply = await new Promise<WsServerMessage>((resolve, reject) => {
      const entry: Pending = {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.pending.push(entry);
      timer = setTimeout(() => {
        const i = this.pending.indexOf(entry);
        if (i >= 0) this.pending.splice(i, 1);
        reject(new ServeClientError("remote_timeout", `no reply within ${this.timeoutMs} ms`));
        // replies are matched by order: a lost reply poisons the connection
        this.ws.terminate();
      }, this.timeoutMs);
      this.ws.send(JSON.stringify(message));
    });
    if (reply.type === "error") {
      const data = (reply.data ?? {}) as JsonObject;
      throw ServeClientError.fromReply(
        `${String(data.message ?? "error")} [${String(data.code ?? "no code")}]`,
        {
          data,
        },
      );
    }
    return reply;
  }

  async reset(params: ResetParams = {}): Promise<StepEnvelope> {
    const reply = await this.request({ type: "reset", data: params as JsonObject });
    return worldReset(expect(reply, "observation").data as StepEnvelope);
  }

  /** One step; `admissible` asks for the admissible actions in the reply's metadata. */
  async step(action: WireAction, opts: { admissible?: boolean } = {}): Promise<StepEnvelope> {
    const data = (opts.admissible ? { ...action, admissible: true } : action) as unknown as JsonObject;
    const reply = await this.request({ type: "step", data });
    return expect(reply, "observation").data as StepEnvelope;
  }

  async state(): Promise<EpisodeStateDoc> {
    const reply = await this.request({ type: "state" });
    return expect(reply, "state").data as EpisodeStateDoc;
  }

  /** `n` sessions of this connection on the identical task (a group reset). */
  async resetGroup(params: ResetParams, n: number): Promise<OpenedEpisodes> {
    const reply = await this.request({ type: "reset", data: { ...params, group: n } as JsonObject });
    return expect(reply, "reset_group").data as unknown as OpenedEpisodes;
  }

  /** Steps of this connection's sessions in one message (<= 256), answered in order. */
  async stepBatch(steps: BatchStep[]): Promise<BatchResult[]> {
    const reply = await this.request({ type: "step_batch", data: { steps } as unknown as JsonObject });
    return (expect(reply, "step_batch").data as unknown as { results: BatchResult[] }).results;
  }

  /** `n` new sessions of this connection continuing `episodeId` from its current state. */
  async fork(episodeId: string, n: number): Promise<OpenedEpisodes> {
    const reply = await this.request({ type: "fork", data: { episode_id: episodeId, n } });
    return expect(reply, "fork").data as unknown as OpenedEpisodes;
  }

  /** How a group's members ended. */
  async group(groupId: string): Promise<GroupDoc> {
    const reply = await this.request({ type: "group", data: { group_id: groupId } });
    return expect(reply, "group").data as unknown as GroupDoc;
  }

  /** Sends raw text (for tests of malformed input); resolves with the reply. */
  async sendRaw(text: string): Promise<WsServerMessage> {
    if (this.closedError) throw this.closedError;
    return new Promise<WsServerMessage>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.ws.send(text);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN && !this.closedError;
  }

  /** Sends `close`, then closes the connection. */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.ws.once("close", () => resolve()));
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: "close" }));
      const timer = setTimeout(() => this.ws.terminate(), 2000);
      timer.unref();
      await closed;
      clearTimeout(timer);
      return;
    }
    this.ws.terminate();
    await closed;
  }
}

function expect<T extends WsServerMessage["type"]>(
  reply: WsServerMessage,
  type: T,
): Extract<WsServerMessage, { type: T }> {
  if (reply.type !== type)
    throw new ServeClientError("remote_bad_response", `expected a ${type} message, got ${reply.type}`);
  return reply as Extract<WsServerMessage, { type: T }>;
}
