import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import WebSocket from "ws";
import { startServer, WsEpisodeClient, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

/** A raw `ws` client that sends but never reads (its socket paused from the start). */
async function deafClient(url: string): Promise<{ client: WebSocket; closed: () => boolean }> {
  const client = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
  let closed = false;
  client.on("close", () => {
    closed = true;
  });
  client.on("error", () => undefined);
  await once(client, "open");
  client.pause();
  return { client, closed: () => closed };
}

test("a client that floods resets and never reads is paused, then dropped; its buffer stays bounded; others go on", async () => {
  const maxSendBufferBytes = 256 * 1024;
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    wsFlow: { maxSendBufferBytes },
  });
  const other = await WsEpisodeClient.connect(server.url);
  try {
    await other.reset({ seed: 7 });
    const deaf = await deafClient(server.url);
    const frame = JSON.stringify({ type: "reset", data: { seed: 1 } });
    for (let i = 0; i < 20_000; i++) deaf.client.send(frame);
    // meanwhile another client keeps working
    for (let i = 0; i < 20; i++) {
      const r = await other.step({ tool: "get_case", args: { case_id: "nope" } });
      assert.equal(typeof r.done, "boolean");
    }
    await eventually(() => server.wsFlow().dropped === 1, 30_000, "the deaf client dropped");
    const flow = server.wsFlow();
    assert.ok(flow.paused >= 1, "reading from it was paused first");
    assert.ok(
      flow.peakBufferedBytes <= maxSendBufferBytes,
      `send buffer bounded: ${flow.peakBufferedBytes} > ${maxSendBufferBytes}`,
    );
    // reading paused at 256 unanswered requests: at most one more socket read's frames came in
    assert.ok(flow.peakPending < 4096, `unanswered requests bounded: ${flow.peakPending}`);
    await eventually(() => server.sessions.size === 1, 10_000, "its session freed");
    // once it reads again it finds its connection closed by the server
    deaf.client.resume();
    await eventually(deaf.closed, 10_000, "the deaf client's connection closed");
    const again = await other.reset({ seed: 8 });
    assert.equal(again.done, false);
  } finally {
    await other.close();
    await server.close();
  }
});

test("activity is replies read, not frames sent: a client that keeps sending but never reads is dropped by the heartbeat", async () => {
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    heartbeatMs: 200,
    idleTimeoutMs: 0, // reaper off: only the heartbeat can drop it
  });
  try {
    const deaf = await deafClient(server.url);
    const state = JSON.stringify({ type: "state" });
    const sending = setInterval(() => {
      if (deaf.client.readyState === WebSocket.OPEN) deaf.client.send(state);
    }, 20);
    try {
      await eventually(() => server.sessions.size === 0, 10_000, "the sending, never-reading client dropped");
    } finally {
      clearInterval(sending);
    }
    assert.equal(server.wsFlow().dropped, 0, "dropped by the heartbeat, not by its buffer");
  } finally {
    await server.close();
  }
});
