import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { EnvSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { bearerCheck, hostCheck, originCheck } from "./auth.ts";
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT } from "./defaults.ts";
import { CLIENT_VIEW, OPERATOR_VIEW, type Viewer } from "./disclosure.ts";
import type { EpisodeDefaults } from "./episode.ts";
import { createHttpApp } from "./http-app.ts";
import { applyHttpTimeouts } from "./http-timeouts.ts";
import { DEFAULT_JSON_LIMITS, type JsonLimits } from "./json-limits.ts";
import type { ServeRecordOptions } from "./served-run.ts";
import { type SessionLimits, SessionManager } from "./sessions.ts";
import type { ServeTarget } from "./target.ts";
import { attachWebSocket } from "./ws-endpoint.ts";
import { DEFAULT_WS_FLOW, type WsFlowLimits, type WsFlowStats } from "./ws-flow.ts";

export interface ServeOptions extends SessionLimits, EpisodeDefaults {
  target: ServeTarget;
  /** Default 127.0.0.1: reachable from this machine only unless told otherwise. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Require `Authorization: Bearer <token>` on every route but `/health`. */
  token?: string;
  /**
   * The operator token (a different one from `token`): a request or WebSocket that presents it as its
   * bearer token (or `access_token`) is authorized and told what clients are not — the task id,
   * family, difficulty and seed the server chose, the start state hash, a variant's layers and params
   * in `/metadata`, and each step's harness `layers` (`disclosure.ts`). Unset: nobody is.
   */
  operatorToken?: string;
  /**
   * Origins a browser page may call from (exact `scheme://host:port`, or `"*"`). A request or
   * WebSocket upgrade that carries any other `Origin` is refused with 403 `FORBIDDEN_ORIGIN`.
   */
  allowOrigins?: string[];
  /** Deepest nesting of request JSON (default 64). */
  maxJsonDepth?: number;
  /** Longest string in request JSON (default 65 536 characters). */
  maxStringLength?: number;
  /** Largest HTTP body and WS frame in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** WS ping period in ms (default 15 000; 0 = off). Two missed pings drop the connection. */
  heartbeatMs?: number;
  /**
   * Per-WS-connection backpressure (`ws-flow.ts`): the send buffer (default 4 MiB; reading pauses at
   * a quarter of it, past it the connection is dropped) and unanswered requests (default 16 384).
   */
  wsFlow?: Partial<WsFlowLimits>;
  /**
   * Record every episode as a trial of one experiment (`serve-<stamp>`), through a store or a
   * recorder (docs/serving.md, "Recording"). Without it nothing is recorded and no trajectory is kept.
   */
  record?: ServeRecordOptions;
}

export interface RunningServer {
  /** `http://host:port` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly sessions: SessionManager;
  readonly spec: EnvSpec;
  /** The experiment the episodes are recorded in (with `record`). */
  readonly experimentId: string | undefined;
  /** Planned and recorded episodes so far (with `record`). */
  recordCounts(): { planned: number; recorded: number } | undefined;
  /** WebSocket backpressure since start: pauses, dropped connections, the largest send buffer. */
  wsFlow(): WsFlowStats;
  /**
   * Stops accepting, closes every session and connection (an episode that had not ended stays
   * `missing`), then, with `record`, waits for the ended episodes' records and closes the run.
   * Idempotent.
   */
  close(): Promise<void>;
}

export { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT };

/**
 * Starts the OpenEnv-compatible HTTP + WebSocket server for one world (or variant).
 *
 * @example
 * ```ts
 * const server = await startServer({ target: worldTarget(deviceSupport), port: 8000 });
 * console.log(server.url); // OpenEnv clients reset/step it; see docs/serving.md
 * await server.close();
 * ```
 */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? "127.0.0.1";
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const spec = opts.target.create().spec;
  if (opts.operatorToken !== undefined && opts.operatorToken === "") {
    throw configError("bad_flag", "the operator token is empty");
  }
  if (opts.operatorToken !== undefined && opts.operatorToken === opts.token) {
    throw configError("bad_flag", "the operator token must differ from the client token");
  }
  const defaults: EpisodeDefaults = {
    ...(opts.families ? { families: opts.families } : {}),
    ...(opts.difficulties ? { difficulties: opts.difficulties } : {}),
    ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.taskSource ? { taskSource: opts.taskSource } : {}),
  };
  if (opts.taskSource && !opts.record) {
    throw configError("bad_flag", "a task source (--curriculum) learns from recorded episodes: give a store");
  }
  // the recording machinery (runner's recorder, store writer) loads only for a server that records
  const run = opts.record
    ? await (await import("./served-run.ts")).ServedRun.open(opts.record, opts.target, defaults)
    : undefined;
  const sessions = new SessionManager(opts.target, defaults, opts, run);
  const clientCheck = bearerCheck(opts.token);
  const operatorCheck = opts.operatorToken !== undefined ? bearerCheck(opts.operatorToken) : () => false;
  const check = (authorization: string | undefined | null, query?: string | null) =>
    clientCheck(authorization, query) || operatorCheck(authorization, query);
  const viewerOf = (authorization: string | undefined | null, query?: string | null): Viewer =>
    operatorCheck(authorization, query) ? OPERATOR_VIEW : CLIENT_VIEW;
  let boundPort = 0;
  const hostAllowed = hostCheck(host, () => boundPort);
  const originAllowed = originCheck(opts.allowOrigins);
  const jsonLimits: JsonLimits = {
    maxDepth: opts.maxJsonDepth ?? DEFAULT_JSON_LIMITS.maxDepth,
    maxStringLength: opts.maxStringLength ?? DEFAULT_JSON_LIMITS.maxStringLength,
  };
  const app = createHttpApp({
    target: opts.target,
    spec,
    sessions,
    authorized: (authorization) => check(authorization),
    viewerOf: (authorization) => viewerOf(authorization),
    hostAllowed,
    originAllowed,
    jsonLimits,
    maxBodyBytes,
    ...(opts.taskSource ? { taskSource: opts.taskSource } : {}),
  });
  const http: Server = createServer(getRequestListener(app.fetch));
  applyHttpTimeouts(http);
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    socket.setKeepAlive(true, 30_000);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const ws = attachWebSocket(http, {
    sessions,
    spec,
    authorized: check,
    viewerOf,
    hostAllowed,
    originAllowed,
    jsonLimits,
    maxPayloadBytes: maxBodyBytes,
    heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    flow: { ...DEFAULT_WS_FLOW, ...opts.wsFlow },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(opts.port ?? DEFAULT_PORT, host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    ws.close();
    await run?.close();
    throw err;
  }
  sessions.start();
  const address = http.address() as AddressInfo;
  boundPort = address.port;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    sessions,
    spec,
    experimentId: run?.experiment.id,
    recordCounts: () => run?.counts,
    wsFlow: () => ws.flowStats(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        sessions.stop();
        ws.close();
        sessions.closeAll("server stopping");
        http.close(() => resolve());
        http.closeAllConnections();
        for (const s of sockets) s.destroy();
      }).then(async () => {
        await run?.close();
      });
      return closing;
    },
  };
}
