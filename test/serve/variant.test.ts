import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { serveMcpHttp, startMcpTrial } from "../../src/mcp/index.ts";
import {
  type RunningServer,
  ServeClient,
  type ServeTarget,
  startServer,
  WsEpisodeClient,
} from "../../src/serve/index.ts";
import { playPolicy } from "./play.ts";

const VARIANT: JsonValue = {
  world: "device-support@1",
  layers: [
    { id: "rule.rate-limit@1", params: { tools: ["get_approval", "get_case"], limit: 1, window: 20 } },
  ],
};

const OPERATOR = "operator-secret";

describe("serving a harnessed variant", () => {
  let target: ServeTarget;
  let server: RunningServer;
  before(async () => {
    target = defaultGym().target(undefined, VARIANT);
    server = await startServer({ target, port: 0, operatorToken: OPERATOR });
  });
  after(() => server.close());

  test("metadata names the variant and its base world; its layers only to the operator", async () => {
    assert.match(target.id, /^v-[0-9a-f]+$/);
    const meta = await new ServeClient(server.url).metadata();
    assert.equal(meta.environment, target.id);
    assert.equal(meta.world, "device-support@1");
    assert.equal(meta.variant, undefined);
    const operator = await new ServeClient(server.url, { token: OPERATOR }).metadata();
    assert.deepEqual((operator.variant as JsonObject).world, "device-support@1");
  });

  test("an HTTP episode plays to completion through the layer; its step info reaches the operator", async () => {
    const client = new ServeClient(server.url, { token: OPERATOR });
    const first = await client.reset({ family: "needs-approval", seed: 2, difficulty: 1 });
    const id = String(first.metadata.episode_id);
    const { last, steps } = await playPolicy("cautious", first, (a) => client.step(id, a));
    const limited = steps.filter(
      (s) =>
        s.observation.kind === "tool_result" &&
        !s.observation.result.ok &&
        s.observation.result.error.code === "rate_limited",
    );
    assert.ok(limited.length > 0, "the rate-limit layer acted");
    assert.ok(
      steps.some((s) => Array.isArray(s.metadata.layers) && (s.metadata.layers as string[]).length > 0),
      "the layers that acted are in the step metadata",
    );
    assert.equal((last.metadata.verdict as { passed: boolean }).passed, true);
    const state = await client.state(id);
    assert.equal(state.environment, target.id);
    assert.deepEqual(state.verdict, last.metadata.verdict);
    await client.close(id);
  });

  test("a WS episode plays to completion through the layer", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    const first = await ws.reset({ family: "lost-reply", seed: 6, difficulty: 2 });
    const { last } = await playPolicy("cautious", first, (a) => ws.step(a));
    assert.equal(last.done, true);
    assert.equal((last.metadata.verdict as { passed: boolean }).passed, true);
    await ws.close();
  });

  test("an MCP trial of the variant is recorded with its variant id", async () => {
    const trial = startMcpTrial({ target, family: "denied", seed: 1, transport: "http" });
    assert.equal(trial.spec.variantId, target.id);
    const http = await serveMcpHttp(trial);
    try {
      const client = new Client({ name: "t", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const caseId = /\bC-\d+\b/.exec(client.getInstructions() ?? "")?.[0];
      assert.ok(caseId);
      const res = await client.callTool({
        name: "close_case",
        arguments: { case_id: caseId, resolution: "no_action" },
      });
      const payload = JSON.parse((res.content as { text: string }[])[0].text) as JsonObject;
      assert.ok(payload.verdict, "the terminal result carries the verdict");
      const record = await trial.record;
      assert.equal(record.spec.variantId, target.id);
      assert.deepEqual(record.verdict, payload.verdict);
      await client.close();
    } finally {
      await http.close();
    }
  });
});
