import type { Server } from "node:http";

/**
 * The timeouts every HTTP server of the gym sets (`proving serve`, `proving mcp --http`): a slow or
 * stalled client (headers dripped, a body that never ends) cannot hold a connection forever. The
 * request timeout bounds receiving a request, not a response: a long-lived SSE stream is unaffected.
 */
export function applyHttpTimeouts(http: Server): void {
  http.headersTimeout = 10_000;
  http.requestTimeout = 30_000;
  http.keepAliveTimeout = 5_000;
  http.maxHeadersCount = 100;
}
