import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WIRE_ERRORS, type WireErrorCode } from "../core/error-catalogue.ts";
import { bearerCheck, hostCheck, originCheck } from "../serve/auth.ts";
import { applyHttpTimeouts } from "../serve/http-timeouts.ts";
import { DEFAULT_JSON_LIMITS, type JsonLimits, jsonLimitViolation } from "../serve/json-limits.ts";
import type { McpTrial } from "./trial.ts";

export interface McpHttpOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** Origins a browser page may call from (`"*"`: any); a request with another `Origin` is refused (403). */
  allowOrigins?: string[];
  /** Nesting and string-length limits on request JSON (default 64 levels, 65 536 characters). */
  jsonLimits?: JsonLimits;
}

export interface McpHttpServer {
  /** The MCP endpoint, `http://host:port/mcp`. */
  url: string;
  /** Resolves when the MCP session is closed (the client sent DELETE, or the server was closed). */
  sessionClosed: Promise<void>;
  close(): Promise<void>;
}

/** A JSON-RPC error reply carrying a wire code of the error catalogue, with that code's HTTP status. */
const jsonError = (code: WireErrorCode, message: string) =>
  new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: `${message} [${code}]` }, id: null }),
    {
      status: WIRE_ERRORS[code].status,
      headers: { "content-type": "application/json" },
    },
  );

/**
 * Serves one MCP trial over streamable HTTP at `/mcp` (one MCP session: the first `initialize`
 * owns the trial; a second is refused by the transport). When the session closes, the trial's
 * agent is gone: an unfinished trial ends as `agent_error`. Anything with a bridge and a server
 * factory will do (a `startMcpTrial` trial, or one episode of a `cmd:` agent).
 */
export async function serveMcpHttp(
  trial: Pick<McpTrial, "bridge" | "createServer">,
  opts: McpHttpOptions = {},
): Promise<McpHttpServer> {
  const host = opts.host ?? "127.0.0.1";
  const server: Server = await trial.createServer();
  let resolveClosed!: () => void;
  const sessionClosed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    maxRequestBodySize: opts.maxBodyBytes ?? 1 << 20,
    onsessionclosed: () => {
      trial.bridge.disconnect("the MCP client closed its session");
      resolveClosed();
    },
  });
  transport.onclose = () => {
    trial.bridge.disconnect("the MCP session closed");
    resolveClosed();
  };
  await server.connect(transport);

  const authorized = bearerCheck(opts.token);
  let boundPort = 0;
  const hostAllowed = hostCheck(host, () => boundPort);
  const originAllowed = originCheck(opts.allowOrigins);
  const limits = opts.jsonLimits ?? DEFAULT_JSON_LIMITS;
  const maxBodyBytes = opts.maxBodyBytes ?? 1 << 20;
  const app = new Hono();
  // a body past the limit is refused while it streams in (chunked bodies declare no length)
  app.use(
    "/mcp",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => jsonError("PAYLOAD_TOO_LARGE", `request body over ${maxBodyBytes} bytes`),
    }),
  );
  app.all("/mcp", async (c) => {
    if (!hostAllowed(c.req.header("host")))
      return jsonError("FORBIDDEN_HOST", "Host is not this loopback server");
    if (!originAllowed(c.req.header("origin"))) {
      return jsonError("FORBIDDEN_ORIGIN", "cross-site request refused (Origin not allowed)");
    }
    if (!authorized(c.req.header("authorization"))) {
      return jsonError("UNAUTHORIZED", "missing or wrong bearer token");
    }
    if (c.req.method !== "POST") return transport.handleRequest(c.req.raw);
    // Read the body once, refuse what breaks the limits, and hand the parsed body to the transport.
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > maxBodyBytes)
      return jsonError("PAYLOAD_TOO_LARGE", `request body over ${maxBodyBytes} bytes`);
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBodyBytes) {
      return jsonError("PAYLOAD_TOO_LARGE", `request body over ${maxBodyBytes} bytes`);
    }
    const violation = jsonLimitViolation(text, limits);
    if (violation) return jsonError("VALIDATION_ERROR", violation.message);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return jsonError("INVALID_JSON", "the request body is not JSON");
    }
    return transport.handleRequest(c.req.raw, { parsedBody });
  });
  app.notFound(() => jsonError("NOT_FOUND", "the MCP endpoint is /mcp"));

  const http = createServer(getRequestListener(app.fetch));
  applyHttpTimeouts(http);
  const sockets = new Set<Socket>();
  http.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  boundPort = address.port;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}/mcp`,
    sessionClosed,
    close() {
      closing ??= (async () => {
        await server.close().catch(() => undefined);
        // let in-flight answers (the DELETE that closed the session) finish; then cut what is left (SSE streams)
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            http.closeAllConnections();
            for (const s of sockets) s.destroy();
          }, 1000);
          force.unref();
          http.close(() => {
            clearTimeout(force);
            resolve();
          });
          http.closeIdleConnections();
        });
        resolveClosed();
      })();
      return closing;
    },
  };
}
