import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EnvSpec } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { parseFork, parseGroupId, parseGroupSize, parseStepBatch } from "./batch-protocol.ts";
import { metadataDoc, schemaDoc } from "./describe.ts";
import { CLIENT_VIEW, serverMetadataFor, type Viewer } from "./disclosure.ts";
import { DEFAULT_JSON_LIMITS, type JsonLimits } from "./json-limits.ts";
import { handleMcpRpc, isNotification, JSON_RPC } from "./mcp-rpc.ts";
import { forkEpisode, groupResult, httpScope, openGroup, stepBatch } from "./multi-session.ts";
import { OPENAPI_VERSION, openApiDoc } from "./openapi.ts";
import { parseEpisodeId, parseJsonText, parseResetParams, parseStepParams, ServeError } from "./protocol.ts";
import type { SessionManager } from "./sessions.ts";
import type { ServeTarget } from "./target.ts";
import type { TaskSource } from "./task-source.ts";

export interface HttpAppDeps {
  target: ServeTarget;
  spec: EnvSpec;
  sessions: SessionManager;
  /** Bearer check (always true without a token). */
  authorized: (authorization: string | undefined | null) => boolean;
  /**
   * Who the request's bearer token makes it (`disclosure.ts`): the operator is told hidden task
   * parameters and fault layers. Default: every request is a client.
   */
  viewerOf?: (authorization: string | undefined | null) => Viewer;
  /** DNS-rebinding guard on the Host header (always true unless bound to loopback). */
  hostAllowed: (host: string | undefined | null) => boolean;
  /** Cross-site guard on the Origin header (always true without an Origin). */
  originAllowed?: (origin: string | undefined | null) => boolean;
  /** Nesting and string-length limits on request JSON. */
  jsonLimits?: JsonLimits;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** The curriculum a bare reset draws from (`GET /curriculum` describes it). */
  taskSource?: TaskSource;
  /** `/openapi.json`'s `info.version`: the HTTP API's version (default 1.0.0, OpenEnv's 1.x profile). */
  version?: string;
}

function errorResponse(c: Context, err: ServeError): Response {
  if (err.code === "UNAUTHORIZED") c.header("WWW-Authenticate", 'Bearer realm="proving"');
  if (err.code === "CAPACITY_REACHED") c.header("Retry-After", "1");
  return c.json({ ...err.toData(), detail: err.message }, err.status as ContentfulStatusCode);
}

async function readJson(c: Context, limits: JsonLimits): Promise<unknown> {
  return parseJsonText(await c.req.text(), limits);
}

/** The HTTP half of the server: OpenEnv's routes, with real per-`episode_id` sessions. */
export function createHttpApp(deps: HttpAppDeps): Hono {
  const { sessions, target, spec } = deps;
  const limits = deps.jsonLimits ?? DEFAULT_JSON_LIMITS;
  const metadata = metadataDoc(target, spec, { ...limits, maxBodyBytes: deps.maxBodyBytes });
  const clientMetadata = serverMetadataFor(metadata, CLIENT_VIEW);
  const viewerOf = deps.viewerOf ?? (() => CLIENT_VIEW);
  const viewer = (c: Context) => viewerOf(c.req.header("authorization"));
  const schema = schemaDoc(spec);
  const openapi = openApiDoc(target, spec, deps.version ?? OPENAPI_VERSION);
  const originAllowed = deps.originAllowed ?? (() => true);
  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof ServeError) return errorResponse(c, err);
    return errorResponse(c, new ServeError("EXECUTION_ERROR", `internal error: ${errorMessage(err)}`));
  });
  app.notFound((c) =>
    errorResponse(c, new ServeError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`)),
  );

  app.use("*", async (c, next) => {
    if (!deps.hostAllowed(c.req.header("host"))) {
      throw new ServeError("FORBIDDEN_HOST", "Host header does not name this loopback server");
    }
    const origin = c.req.header("origin");
    if (!originAllowed(origin)) {
      throw new ServeError(
        "FORBIDDEN_ORIGIN",
        `cross-site request from origin ${quoteInput(origin, 100)} refused (allow it with --allow-origin)`,
      );
    }
    await next();
  });

  app.get("/health", (c) => c.json({ status: "healthy" }));

  app.use("*", async (c, next) => {
    if (!deps.authorized(c.req.header("authorization"))) {
      throw new ServeError("UNAUTHORIZED", "missing or wrong bearer token");
    }
    await next();
  });
  app.use(
    "*",
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) =>
        errorResponse(c, new ServeError("PAYLOAD_TOO_LARGE", `request body over ${deps.maxBodyBytes} bytes`)),
    }),
  );

  app.get("/metadata", (c) => c.json(viewer(c).operator ? metadata : clientMetadata));
  app.get("/openapi.json", (c) => c.json(openapi));

  /**
   * OpenEnv's MCP mode over HTTP: a JSON-RPC reply (status 200), as OpenEnv's server answers; a
   * notification (`notifications/initialized`) is accepted with 202 and no body, as MCP's streamable
   * HTTP has it, so the official SDK client connects too. `Mcp-Session-Id` names the episode of a
   * `tools/call` without `params.session_id`.
   */
  app.post("/mcp", async (c) => {
    const text = await c.req.text();
    let request: unknown;
    try {
      request = parseJsonText(text, limits);
    } catch (err) {
      if (err instanceof ServeError && err.code === "INVALID_JSON") {
        return c.json({
          jsonrpc: "2.0",
          id: null,
          error: { code: JSON_RPC.parseError, message: "Parse error" },
        });
      }
      throw err;
    }
    if (isNotification(request)) return c.body(null, 202);
    const headerSession = c.req.header("mcp-session-id");
    return c.json(
      await handleMcpRpc(request, {
        spec,
        sessions,
        viewer: viewer(c),
        ...(headerSession ? { headerSession } : {}),
        // a Streamable-HTTP client's `initialize` (it accepts an event stream, as MCP requires) opens
        // the MCP session: its id goes back in the header; OpenEnv's JSON-RPC clients open none
        ...(streamable(c) ? { onSession: (id: string) => c.header("Mcp-Session-Id", id) } : {}),
      }),
    );
  });
  /** MCP's streamable HTTP: this server opens no stream of its own (GET is 405, as the spec allows). */
  app.get("/mcp", (c) => notAllowed(c, "POST, DELETE"));
  /** MCP's streamable HTTP: DELETE ends the session (the episode) `Mcp-Session-Id` names. */
  app.delete("/mcp", (c) => {
    const episodeId = c.req.header("mcp-session-id");
    if (!episodeId) return notAllowed(c, "POST");
    const session = sessions.getHttp(episodeId);
    if (!session) throw unknownEpisode(episodeId);
    sessions.close(session, "closed by client");
    return c.json({ episode_id: episodeId, closed: true });
  });
  app.get("/schema", (c) => c.json(schema));
  /** Not in OpenEnv: the distribution a bare reset draws from (`proving serve --curriculum`). */
  app.get("/curriculum", (c) => {
    if (!deps.taskSource)
      throw new ServeError("NOT_FOUND", "this server serves no curriculum (--curriculum)");
    return c.json(deps.taskSource.describe());
  });

  const scope = httpScope(sessions);

  app.post("/reset", async (c) => {
    const body = await readJson(c, limits);
    const params = parseResetParams(body);
    // a group: N sessions on the identical task, each its own episode (`multi-session.ts`)
    const group = parseGroupSize(body);
    if (group !== undefined) return c.json(await openGroup(scope, params, group, viewer(c)));
    const episodeId = params.episode_id ?? `ep-${randomUUID()}`;
    let episode = sessions.getHttp(episodeId);
    const created = episode === undefined;
    episode ??= sessions.createHttp(episodeId);
    const session = episode;
    try {
      const who = viewer(c);
      return c.json(await session.exclusive(sessions.clock, () => session.reset(params, episodeId, who)));
    } catch (err) {
      // a session whose first reset failed holds nothing worth keeping
      if (created) sessions.close(session, "reset failed");
      throw err;
    }
  });

  app.post("/step", async (c) => {
    const params = parseStepParams(await readJson(c, limits));
    const episodeId = parseEpisodeId(params.episode_id, "step.episode_id");
    const session = sessions.getHttp(episodeId);
    if (!session) throw unknownEpisode(episodeId);
    const who = viewer(c);
    const envelope = await session.exclusive(sessions.clock, () =>
      session.step(params.action, {
        viewer: who,
        ...(params.request_id !== undefined ? { requestId: params.request_id } : {}),
        ...(params.timeout_s !== undefined ? { timeoutS: params.timeout_s } : {}),
        ...(params.admissible ? { admissible: true } : {}),
      }),
    );
    return c.json(envelope);
  });

  /** Not in OpenEnv: one request steps many episodes; answers in order, each entry's error its own. */
  app.post("/step_batch", async (c) => {
    const entries = parseStepBatch(await readJson(c, limits));
    return c.json({ results: await stepBatch(scope, entries, viewer(c)) });
  });

  /** Not in OpenEnv: n new episodes continuing one from its current state. */
  app.post("/fork", async (c) => {
    const { episodeId, n } = parseFork(await readJson(c, limits));
    return c.json(await forkEpisode(scope, episodeId, n, viewer(c)));
  });

  /** Not in OpenEnv: how a group's members ended. */
  app.get("/group", (c) => c.json(groupResult(sessions, parseGroupId(c.req.query("group_id")))));

  app.get("/state", async (c) => {
    const episodeId = parseEpisodeId(c.req.query("episode_id"), "state.episode_id");
    const session = sessions.getHttp(episodeId);
    if (!session) throw unknownEpisode(episodeId);
    const who = viewer(c);
    return c.json(await session.exclusive(sessions.clock, async () => session.state(who)));
  });

  /** Not in OpenEnv: frees an HTTP session before the reaper would. */
  app.post("/close", async (c) => {
    const body = (await readJson(c, limits)) as JsonObject | undefined;
    const episodeId = parseEpisodeId(body?.episode_id, "close.episode_id");
    const session = sessions.getHttp(episodeId);
    if (!session) throw unknownEpisode(episodeId);
    sessions.close(session, "closed by client");
    return c.json({ episode_id: episodeId, closed: true });
  });

  return app;
}

/** A Streamable-HTTP MCP client: it accepts `text/event-stream` replies (MCP requires it to say so). */
function streamable(c: Context): boolean {
  return (c.req.header("accept") ?? "").includes("text/event-stream");
}

/** 405 with a JSON-RPC error, as the MCP SDK's own server answers a method it does not serve. */
function notAllowed(c: Context, allow: string): Response {
  c.header("Allow", allow);
  return c.json(
    { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.serverError, message: "Method not allowed." } },
    405,
  );
}

function unknownEpisode(episodeId: string): ServeError {
  return new ServeError(
    "SESSION_ERROR",
    `unknown episode_id "${quoteInput(episodeId, 64)}" (never reset, closed, or reclaimed after being idle)`,
    { status: 404 },
  );
}
