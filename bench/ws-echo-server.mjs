// A bare `ws` echo server in a process of its own, for bench/ws-server.ts: it sends every message back
// (the most a WebSocket server can do for a ping-pong client). Prints `{"ws_url": ...}` on stdout once
// listening, as `proving serve --json` does; loopback only; ends on SIGTERM or when stdin closes.
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("listening", () => {
  process.stdout.write(`${JSON.stringify({ ws_url: `ws://127.0.0.1:${wss.address().port}` })}\n`);
});
wss.on("connection", (ws) => ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary })));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
