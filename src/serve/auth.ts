import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * A bearer-token check in constant time. `undefined` token: every request passes.
 * Accepts `Authorization: Bearer <token>`, and for WebSocket upgrades (browsers cannot set
 * headers there) the RFC 6750 `access_token` query parameter.
 */
export function bearerCheck(
  token: string | undefined,
): (authorization: string | undefined | null, query?: string | null) => boolean {
  if (token === undefined || token === "") return () => true;
  const expected = digest(token);
  return (authorization, query) => {
    let presented: string | undefined;
    const m = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
    if (m) presented = m[1].trim();
    else if (query) presented = query;
    if (presented === undefined) return false;
    return timingSafeEqual(digest(presented), expected);
  };
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * DNS-rebinding guard: a server bound to a loopback address answers only requests whose `Host`
 * names a loopback address (a web page cannot reach it through a rebound domain). A server bound
 * elsewhere accepts any Host. `port()` is read per request (it may be chosen at listen time).
 */
export function hostCheck(
  boundHost: string,
  port: () => number,
): (hostHeader: string | undefined | null) => boolean {
  if (!isLoopbackHost(boundHost)) return () => true;
  return (hostHeader) => {
    if (!hostHeader) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.trim().toLowerCase());
    if (!m) return false;
    if (!isLoopbackHost(m[1])) return false;
    return m[2] === undefined || Number(m[2]) === port();
  };
}

/**
 * Cross-site guard on the `Origin` header: a browser names the page's origin on every cross-site
 * request (a `text/plain` POST needs no preflight) and on every WebSocket upgrade, so a request
 * that carries an `Origin` is refused unless that origin is allowed (`"*"` allows every origin).
 * A request without `Origin` (curl, OpenEnv's Python client, a Node client) is not from a web page
 * and passes; the bearer token, when set, still applies.
 */
export function originCheck(allowed: readonly string[] = []): (origin: string | undefined | null) => boolean {
  if (allowed.includes("*")) return () => true;
  const origins = new Set(allowed.map(normalizeOrigin));
  return (origin) => {
    if (origin === undefined || origin === null) return true;
    return origins.has(normalizeOrigin(origin));
  };
}

function normalizeOrigin(origin: string): string {
  const trimmed = origin.trim().toLowerCase();
  try {
    const url = new URL(trimmed);
    return url.origin === "null" ? trimmed : url.origin;
  } catch {
    return trimmed;
  }
}
