/**
 * A `fetch` for provider calls over node:http(s) with keep-alive agents. The global fetch (undici with
 * web streams) cost ~3.5x more CPU per call in the overhead bench (1.2-1.9 ms against 0.3-0.5 ms per
 * call, 50 concurrent), which at 100 concurrent episodes was most of the process's work. It supports
 * what the provider packages send (string or bytes bodies, abort signals) and hands anything else to
 * the global fetch. Failures look like undici's (`TypeError("fetch failed", {cause})`, the signal's
 * reason on abort), so the SDK classifies them the same way. Response bodies are capped on the wire and
 * after decompression (`createNodeFetch({maxResponseBytes})`, default 32 MiB): past the cap the call fails
 * as a network failure, so it is retried and, after the retries, ends the trial as `infra_error`.
 */
import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [k, v] of headers instanceof Headers ? headers.entries() : headers) out[k.toLowerCase()] = v;
  } else {
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  }
  return out;
}

/** Largest provider response body, on the wire and after decompression (default 32 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 << 20;

/** A response past the cap: the call fails as a network failure would (retried, then infra_error). */
export class ResponseTooLargeError extends Error {
  constructor(where: "on the wire" | "decompressed", max: number) {
    super(`the provider's response is over ${max} bytes ${where}`);
    this.name = "ResponseTooLargeError";
  }
}

function decode(body: Buffer, encoding: string | undefined, max: number): Buffer {
  // maxOutputLength stops inflating at the cap: a 400 KB gzip bomb never becomes gigabytes
  const opts = { maxOutputLength: max };
  try {
    switch ((encoding ?? "").trim().toLowerCase()) {
      case "gzip":
      case "x-gzip":
        return zlib.gunzipSync(body, opts);
      case "deflate":
        return zlib.inflateSync(body, opts);
      case "br":
        return zlib.brotliDecompressSync(body, opts);
      default:
        return body;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ResponseTooLargeError("decompressed", max);
    }
    throw err;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** A node:http fetch whose response bodies are capped at `maxResponseBytes` before and after decompression. */
export function createNodeFetch(opts: { maxResponseBytes?: number } = {}): typeof fetch {
  const max = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return (input, init = {}) => fetchOnce(input, init, max);
}

export const nodeFetch: typeof fetch = createNodeFetch();

function fetchOnce(input: Parameters<typeof fetch>[0], init: RequestInit, max: number): Promise<Response> {
  const body = init.body;
  const plainBody =
    body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (input instanceof Request || !plainBody) return fetch(input, init);
  const url = new URL(String(input));
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const headers = headerRecord(init.headers);
  const payload = typeof body === "string" ? Buffer.from(body) : (body as Uint8Array | null | undefined);
  if (payload) headers["content-length"] = String(payload.byteLength);
  headers["accept-encoding"] ??= "gzip, deflate, br";
  return new Promise<Response>((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: init.method ?? "GET",
      headers,
      agent,
    });
    const onAbort = () => {
      request.destroy();
      reject(abortReason(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => signal?.removeEventListener("abort", onAbort);
    request.on("error", (err) => {
      done();
      if (signal?.aborted) reject(abortReason(signal));
      else reject(new TypeError("fetch failed", { cause: err }));
    });
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      res.on("data", (c: Buffer) => {
        received += c.length;
        if (received > max) {
          done();
          res.destroy();
          request.destroy();
          reject(new TypeError("fetch failed", { cause: new ResponseTooLargeError("on the wire", max) }));
          return;
        }
        chunks.push(c);
      });
      res.on("error", (err) => {
        done();
        reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: err }));
      });
      res.on("end", () => {
        done();
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          for (const item of Array.isArray(v) ? v : [v]) responseHeaders.append(k, item);
        }
        const status = res.statusCode ?? 0;
        let bytes: Buffer;
        try {
          bytes = decode(Buffer.concat(chunks), res.headers["content-encoding"], max);
        } catch (err) {
          reject(new TypeError("fetch failed", { cause: err }));
          return;
        }
        responseHeaders.delete("content-encoding");
        responseHeaders.delete("content-length");
        const empty = status === 204 || status === 205 || status === 304 || init.method === "HEAD";
        try {
          resolve(
            new Response(empty ? null : bytes, {
              status,
              statusText: res.statusMessage ?? "",
              headers: responseHeaders,
            }),
          );
        } catch (err) {
          reject(new TypeError("fetch failed", { cause: err }));
        }
      });
    });
    request.end(payload ?? undefined);
  });
}
