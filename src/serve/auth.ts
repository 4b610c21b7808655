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
