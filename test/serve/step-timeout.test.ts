/** A step's `timeout_s` (the runner's deadline, for one step): a world that does not answer in time leaves the episode unusable. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Environment } from "../../src/core/contracts.ts";
import { type ServeTarget, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

/** device-support, except that a step never answers. */
const hangingTarget: ServeTarget = {
  ...worldTarget(deviceSupport),
  create(): Environment {
    const env = deviceSupport.create();
    env.step = () => new Promise(() => {});
    return env;
  },
};

test("a step past timeout_s fails with EXECUTION_ERROR; the episode is then unusable", async () => {
  const server = await startServer({ target: hangingTarget, port: 0, heartbeatMs: 0 });
  try {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
    };
    const reset = await post("/reset", { family: "denied", difficulty: 1, seed: 1 });
    const episodeId = (reset.body as { metadata: { episode_id: string } }).metadata.episode_id;
    const action = { tool: "get_case", args: { case_id: "C-1" } };
    const late = await post("/step", { episode_id: episodeId, action, timeout_s: 0.05 });
    assert.equal(late.status, 500);
    assert.equal(late.body.code, "EXECUTION_ERROR");
    assert.match(String(late.body.message), /no answer within 50 ms/);
    const after = await post("/step", { episode_id: episodeId, action });
    assert.equal(after.body.code, "SESSION_ERROR");
    assert.match(String(after.body.message), /a step timed out/);
  } finally {
    await server.close();
  }
});
