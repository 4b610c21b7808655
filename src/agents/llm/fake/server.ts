/**
 * The fake LLM provider: real HTTP speaking OpenAI chat completions (`POST /v1/chat/completions`) and
 * Anthropic messages (`POST /v1/messages`), answering from a scripted model, with injectable faults.
 * Base URL for both providers: `http://HOST:PORT/v1`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import type { FakeModel, FakeReply, FakeRequest } from "./conversation.ts";
import { fakeEmbeddingsResponse } from "./embeddings.ts";
import { type FaultDecision, FaultInjector, type FaultPlan } from "./faults.ts";
import { anthropicError, anthropicResponse, parseAnthropicRequest } from "./wire-anthropic.ts";
import { openAiError, openAiResponse, parseOpenAiRequest } from "./wire-openai.ts";

export interface FakeLlmServerOptions {
  model: FakeModel;
  faults?: FaultPlan;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** When set, requests must carry it (`Authorization: Bearer` or `x-api-key`), else 401. */
  apiKey?: string;
}

export interface FakeServerStats {
  requests: number;
  statuses: Record<number, number>;
  inFlight: number;
  maxInFlight: number;
  hung: number;
  /** Malformed or oversized 200s sent (the `body` faults). */
  malformed?: number;
  byFormat: { openai: number; anthropic: number };
}

export interface FakeLlmServer {
  /** `http://HOST:PORT` */
  readonly url: string;
  /** `http://HOST:PORT/v1`: the base URL for `openai`, `anthropic` and `openai-compatible`. */
  readonly baseURL: string;
  readonly stats: FakeServerStats;
  /** Replaces the fault plan (the request counter keeps counting). */
  setFaults(plan: FaultPlan): void;
  close(): Promise<void>;
}

type Format = "openai" | "anthropic";

function route(
  method: string | undefined,
  url: string | undefined,
): Format | "health" | "models" | "embeddings" | null {
  const path = (url ?? "").split("?")[0].replace(/\/+$/, "");
  if (method === "POST" && (path === "/v1/embeddings" || path === "/embeddings")) return "embeddings";
  if (method === "POST" && (path === "/v1/chat/completions" || path === "/chat/completions")) return "openai";
  if (method === "POST" && (path === "/v1/messages" || path === "/messages")) return "anthropic";
  if (method === "GET" && (path === "/health" || path === "")) return "health";
  if (method === "GET" && (path === "/v1/models" || path === "/models")) return "models";
  return null;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

let bombCache: { bytes: number; gz: Buffer } | undefined;

/** A 200 whose body no provider client can use (the `body` faults). */
function sendMalformed(res: http.ServerResponse, kind: string, bytes: number): void {
  if (res.writableEnded || res.destroyed) return;
  const plain = (type: string, text: string | Buffer) => {
    res.writeHead(200, { "content-type": type, "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  switch (kind) {
    case "empty":
      plain("application/json", "");
      return;
    case "non-json":
      plain("application/json", "upstream said: try again later");
      return;
    case "html":
      plain("text/html", "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    case "huge": {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = bytes;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("error", () => undefined);
      pump();
      return;
    }
    default: {
      if (bombCache?.bytes !== bytes)
        bombCache = { bytes, gz: zlib.gzipSync(Buffer.alloc(bytes), { level: 9 }) };
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": bombCache.gz.length,
      });
      res.end(bombCache.gz);
    }
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export async function startFakeLlmServer(options: FakeLlmServerOptions): Promise<FakeLlmServer> {
  let injector = new FaultInjector(options.faults ?? {});
  let plan: FaultPlan = options.faults ?? {};
  const stats: FakeServerStats = {
    requests: 0,
    statuses: {},
    inFlight: 0,
    maxInFlight: 0,
    hung: 0,
    byFormat: { openai: 0, anthropic: 0 },
  };
  const timers = new Set<NodeJS.Timeout>();
  const hanging = new Set<http.ServerResponse>();
  const count = (status: number) => {
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const kind = route(req.method, req.url);
    if (kind === "health") return send(res, 200, { ok: true });
    if (kind === "models") return send(res, 200, { object: "list", data: [] });
    if (kind === null) return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    const format = kind === "embeddings" ? "openai" : kind;
    const error = (status: number, message: string) =>
      format === "openai" ? openAiError(status, message) : anthropicError(status, message);
    const raw = await readBody(req);
    if (options.apiKey !== undefined) {
      const auth = req.headers.authorization ?? "";
      const key = req.headers["x-api-key"] ?? (auth.startsWith("Bearer ") ? auth.slice(7) : "");
      if (key !== options.apiKey) {
        count(401);
        return send(res, 401, error(401, "invalid api key"));
      }
    }
    if (kind === "embeddings") {
      try {
        return send(res, 200, fakeEmbeddingsResponse(JSON.parse(raw) as Record<string, unknown>));
      } catch (err) {
        count(400);
        return send(res, 400, error(400, err instanceof Error ? err.message : String(err)));
      }
    }
    let request: FakeRequest;
    try {
      const body = JSON.parse(raw) as Record<string, unknown>;
      request = format === "openai" ? parseOpenAiRequest(body) : parseAnthropicRequest(body);
    } catch (err) {
      count(400);
      return send(res, 400, error(400, err instanceof Error ? err.message : String(err)));
    }
    const n = ++stats.requests;
    stats.byFormat[format]++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        stats.inFlight--;
      }
    };
    res.on("close", release);
    const decision: FaultDecision = injector.decide(n, request, stats.inFlight);
    if (decision.kind === "hang") {
      stats.hung++;
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    if (decision.kind === "body") {
      release();
      count(200);
      stats.malformed = (stats.malformed ?? 0) + 1;
      return sendMalformed(res, decision.body, decision.bytes);
    }
    if (decision.kind === "status") {
      release();
      count(decision.status);
      const headers: Record<string, string> = {};
      if (decision.retryAfterMs !== undefined) {
        headers["retry-after-ms"] = String(decision.retryAfterMs);
        headers["retry-after"] = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
      }
      return send(res, decision.status, error(decision.status, `injected ${decision.status}`), headers);
    }
    let reply: FakeReply;
    try {
      reply = await options.model(request);
    } catch (err) {
      release();
      count(500);
      return send(res, 500, error(500, `script failed: ${err instanceof Error ? err.message : String(err)}`));
    }
    const body =
      format === "openai" ? openAiResponse(request, reply, n) : anthropicResponse(request, reply, n);
    const answer = () => {
      release();
      count(200);
      send(res, 200, body);
    };
    const latency = plan.latencyMs ?? 0;
    if (latency <= 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, latency);
    timers.add(timer);
    res.on("close", () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { error: { message: String(err) } }));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    stats,
    setFaults(next: FaultPlan) {
      plan = next;
      injector = new FaultInjector(next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
