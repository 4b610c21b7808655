/** The server's defaults, apart from the server (so the CLI's flags can show them without loading hono). */
export const DEFAULT_PORT = 8000;
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;
export const DEFAULT_HEARTBEAT_MS = 15_000;
