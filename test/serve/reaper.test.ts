import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ServeClient,
  ServeClientError,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

async function inBatches<T>(n: number, batch: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, (_, j) => fn(i + j)))));
  }
  return out;
}

test("1,000 sessions opened and abandoned (HTTP and WS) are all reaped", async () => {
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    maxSessions: 1000,
    idleTimeoutMs: 1000,
  });
  const wsClients: WsEpisodeClient[] = [];
  try {
    const http = new ServeClient(server.url);
    const httpIds = await inBatches(600, 50, async (i) => {
      const r = await http.reset({ seed: i, episode_id: `abandoned-${i}` });
      return String(r.metadata.episode_id);
    });
    assert.equal(new Set(httpIds).size, 600);
    await inBatches(400, 50, async (i) => {
      const ws = await WsEpisodeClient.connect(server.url);
      wsClients.push(ws);
      // on a loaded machine the reaper may take a session before its first message: that is reaping too
      await ws.reset({ seed: i }).catch((err: unknown) => {
        if (!(err instanceof ServeClientError && err.wireCode === "SESSION_ERROR")) throw err;
      });
    });
    // every one of them was a live session at some point; none is closed by its client
    assert.equal(server.sessions.counts().closed, 0);
    await eventually(() => server.sessions.size === 0, 60_000, "every abandoned session reaped");
    const counts = server.sessions.counts();
    assert.equal(counts.reaped, 1000);
    assert.equal(counts.closed, 0);
    // reaped WS sessions had their connections closed by the server
    await eventually(() => wsClients.every((c) => !c.isOpen), 10_000, "reaped connections closed");
    // and a reaped HTTP episode is gone
    await assert.rejects(http.state(httpIds[0]), /SESSION_ERROR/);
    // the server is fully usable again
    const fresh = await http.reset({ seed: 1 });
    assert.equal(fresh.done, false);
  } finally {
    for (const c of wsClients) await c.close().catch(() => undefined);
    await server.close();
  }
});
