import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ServeClient,
  ServeClientError,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

/** Long enough for a loaded machine to open three sessions within it. */
const GRACE_MS = 1500;

function isCode(code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ServeClientError, `expected ServeClientError, got ${String(err)}`);
    assert.equal(err.wireCode, code);
    return true;
  };
}

test("at --max-sessions, a new session evicts the least recently used idle one (HTTP first), not after the idle timeout", async () => {
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    maxSessions: 3,
    evictAfterMs: GRACE_MS,
  });
  const http = new ServeClient(server.url);
  const clients: WsEpisodeClient[] = [];
  try {
    // the oldest session is a WS connection's; then two abandoned HTTP resets fill the server
    const a = await WsEpisodeClient.connect(server.url);
    clients.push(a);
    await a.reset({ seed: 1 });
    await http.reset({ seed: 2, episode_id: "h1" });
    await http.reset({ seed: 3, episode_id: "h2" });
    // within the grace, nothing is evicted: the server is full
    await assert.rejects(http.reset({ seed: 4 }), isCode("CAPACITY_REACHED"));
    assert.equal(server.sessions.counts().evicted, 0);
    await sleep(GRACE_MS + 100);
    // past it, the least recently used HTTP session goes first (the WS one is older)
    await http.reset({ seed: 5, episode_id: "h3" });
    assert.equal(server.sessions.counts().evicted, 1);
    await assert.rejects(http.state("h1"), isCode("SESSION_ERROR"));
    assert.equal((await http.state("h2")).episode_id, "h2", "the other HTTP session stays");
    await sleep(GRACE_MS + 100);
    // with h2 just used, h3 is the idle HTTP session to go
    const b = await WsEpisodeClient.connect(server.url);
    clients.push(b);
    await b.reset({ seed: 6 });
    assert.equal(server.sessions.counts().evicted, 2);
    await assert.rejects(http.state("h3"), isCode("SESSION_ERROR"));
    await sleep(GRACE_MS + 100);
    // then h2; then the least recently used WS session (a), whose connection is closed
    await http.reset({ seed: 7, episode_id: "h4" });
    await assert.rejects(http.state("h2"), isCode("SESSION_ERROR"));
    await sleep(GRACE_MS + 100);
    // h4 just used: no HTTP session is idle past the grace, so a new one evicts a (b was used later)
    await http.state("h4");
    const c = await WsEpisodeClient.connect(server.url);
    clients.push(c);
    await c.reset({ seed: 8 });
    assert.equal(server.sessions.counts().evicted, 4);
    await assert.rejects(a.reset({ seed: 9 }), (err: unknown) => err instanceof ServeClientError);
    assert.equal((await b.reset({ seed: 10 })).done, false, "the more recently used WS session stays");
    assert.equal(server.sessions.counts().reaped, 0, "evicted, not reaped by the idle timeout");
    assert.equal(server.sessions.size, 3);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await server.close();
  }
});

test("a group is refused rather than evicting too few sessions for it", async () => {
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    maxSessions: 2,
    evictAfterMs: 200,
  });
  const http = new ServeClient(server.url);
  try {
    await http.reset({ seed: 1, episode_id: "old" });
    await sleep(300);
    await http.reset({ seed: 2, episode_id: "fresh" });
    // a group of 2 would need both slots: only one session is idle past the grace, so none is evicted
    const res = await fetch(`${server.url}/reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ group: 2, seed: 3 }),
    });
    assert.equal(res.status, 503);
    assert.equal(server.sessions.counts().evicted, 0);
    assert.equal((await http.state("old")).episode_id, "old");
  } finally {
    await server.close();
  }
});

test("with a store, an evicted episode is abandoned (its trial stays missing) and the next one is recorded", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-evict-"));
  const store = await openStore(path.join(dir, "proving.db"));
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    maxSessions: 1,
    evictAfterMs: 200,
    maxSteps: 1,
    record: { store, experimentId: "serve-evict" },
  });
  try {
    const http = new ServeClient(server.url);
    await http.reset({ seed: 1, episode_id: "abandoned" });
    await sleep(300);
    await http.reset({ seed: 2, episode_id: "played" });
    assert.equal(server.sessions.counts().evicted, 1);
    // one step reaches the server's step cap: the episode ends and is recorded
    const last = await http.step("played", { tool: "get_case", args: { case_id: "C-0" } });
    assert.equal(last.done, true);
  } finally {
    await server.close();
  }
  try {
    const manifest = await store.getManifest("serve-evict");
    assert.equal(manifest.length, 2);
    assert.equal(await store.getTrial(manifest[0].id), undefined, "the evicted episode: missing");
    assert.ok(await store.getTrial(manifest[1].id), "the played episode: recorded");
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
