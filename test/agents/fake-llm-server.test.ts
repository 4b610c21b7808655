/** The fake provider on the wire: the two formats, usage, injected faults, scripts from files. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadFakeScript, sequenceModel } from "../../src/agents/llm/fake/index.ts";
import { readDataFile } from "../../src/cli/context.ts";
import { registry, withServer } from "./llm-support.ts";

interface OpenAiBody {
  object: string;
  choices: Array<{
    finish_reason: string;
    message: {
      content: string | null;
      tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    };
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
interface AnthropicBody {
  type: string;
  stop_reason: string;
  content: unknown[];
  usage: { input_tokens: number; output_tokens: number };
}
interface ErrorBody {
  type?: string;
  error: { type: string };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const reply = sequenceModel([
  { text: "checking", toolCalls: [{ name: "get_case", arguments: { case_id: "C-1" } }] },
  { text: "done" },
]);

test("OpenAI chat completions: tool_calls with string arguments, usage, finish_reason", async () => {
  await withServer({ model: reply }, async (server) => {
    const res = await post(`${server.baseURL}/chat/completions`, {
      model: "m",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "go" },
      ],
      tools: [{ type: "function", function: { name: "get_case", parameters: { type: "object" } } }],
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as OpenAiBody;
    assert.equal(body.object, "chat.completion");
    const choice = body.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "checking");
    const call = choice.message.tool_calls?.[0];
    assert.ok(call);
    assert.equal(call.function.name, "get_case");
    assert.equal(typeof call.function.arguments, "string");
    assert.deepEqual(JSON.parse(call.function.arguments), { case_id: "C-1" });
    assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
    // the second turn (one assistant message in the history) gets the second reply
    const again = (await (
      await post(`${server.baseURL}/chat/completions`, {
        model: "m",
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: call.id, content: '{"ok":true}' },
        ],
      })
    ).json()) as OpenAiBody;
    assert.equal(again.choices[0].finish_reason, "stop");
    assert.equal(again.choices[0].message.tool_calls, undefined);
  });
});

test("Anthropic messages: tool_use blocks, usage, stop_reason; max_tokens is required", async () => {
  await withServer({ model: reply }, async (server) => {
    const res = await post(`${server.baseURL}/messages`, {
      model: "claude-fake",
      max_tokens: 100,
      system: [{ type: "text", text: "sys" }],
      messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    });
    const body = (await res.json()) as AnthropicBody;
    assert.equal(body.type, "message");
    assert.equal(body.stop_reason, "tool_use");
    assert.deepEqual(body.content[1], {
      type: "tool_use",
      id: "toolu_0_0",
      name: "get_case",
      input: { case_id: "C-1" },
    });
    assert.ok(body.usage.input_tokens > 0 && body.usage.output_tokens > 0);
    const bad = await post(`${server.baseURL}/messages`, { model: "m", messages: [] });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as ErrorBody).type, "error");
    assert.equal(server.stats.byFormat.anthropic, 1, "a rejected request is not counted");
  });
});

test("streaming is refused, unknown routes are 404, an API key can be required", async () => {
  await withServer({ model: reply, apiKey: "sekrit" }, async (server) => {
    const noKey = await post(`${server.baseURL}/chat/completions`, { model: "m", messages: [] });
    assert.equal(noKey.status, 401);
    const auth = { authorization: "Bearer sekrit" };
    const stream = await post(
      `${server.baseURL}/chat/completions`,
      { model: "m", messages: [], stream: true },
      auth,
    );
    assert.equal(stream.status, 400);
    assert.equal((await post(`${server.url}/v2/nothing`, {}, auth)).status, 404);
    const ok = await post(
      `${server.baseURL}/messages`,
      { model: "m", max_tokens: 5, messages: [] },
      { "x-api-key": "sekrit" },
    );
    assert.equal(ok.status, 200);
  });
});

test("faults: 429 with retry-after headers, counted triggers, concurrency limit, hang until the client gives up", async () => {
  await withServer(
    {
      model: reply,
      faults: {
        latencyMs: 300,
        maxConcurrent: 2,
        retryAfterMs: 1500,
        rules: [
          { status: 429, retryAfterMs: 250, requests: [1] },
          { status: 500, requests: [2] },
          { hang: true, requests: [3] },
        ],
      },
    },
    async (server) => {
      const chat = (signal?: AbortSignal) =>
        fetch(`${server.baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
          ...(signal ? { signal } : {}),
        });
      const first = await chat();
      assert.equal(first.status, 429);
      assert.equal(first.headers.get("retry-after-ms"), "250");
      assert.equal(first.headers.get("retry-after"), "1");
      assert.equal(((await first.json()) as ErrorBody).error.type, "rate_limit_exceeded");
      assert.equal((await chat()).status, 500);
      await assert.rejects(chat(AbortSignal.timeout(100)), /TimeoutError|aborted/i);
      // three at once against a limit of two: one is throttled, with the plan's retry-after
      const burst = await Promise.all([chat(), chat(), chat()]);
      const statuses = burst.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 429]);
      const throttled = burst.find((r) => r.status === 429)!;
      assert.equal(throttled.headers.get("retry-after"), "2");
      assert.equal(server.stats.hung, 1);
      assert.equal(server.stats.inFlight, 0, "the hung request was released when the client left");
    },
  );
});

test("scripts: policy:NAME and files with replies, malformed turns and faults", async () => {
  const cautious = loadFakeScript("policy:cautious", registry, readDataFile);
  assert.equal(cautious.description, "policy:cautious");
  assert.throws(
    () => loadFakeScript("policy:reckless", registry, readDataFile),
    /no scripted policy "reckless"/,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-fake-script-"));
  try {
    const file = path.join(dir, "script.yaml");
    fs.writeFileSync(
      file,
      [
        "model: policy:cautious",
        "malformed: { '0': invalid_json }",
        "faults: { latencyMs: 5, rules: [{ status: 503, first: 1 }] }",
      ].join("\n"),
    );
    const loaded = loadFakeScript(file, registry, readDataFile);
    assert.equal(loaded.faults.latencyMs, 5);
    await withServer({ model: loaded.model, faults: loaded.faults }, async (server) => {
      const call = () =>
        post(`${server.baseURL}/chat/completions`, {
          model: "m",
          messages: [{ role: "user", content: "Support case C-12345: handle it." }],
          tools: [{ type: "function", function: { name: "get_case", parameters: {} } }],
        });
      assert.equal((await call()).status, 503);
      const body = (await (await call()).json()) as OpenAiBody;
      const tc = body.choices[0].message.tool_calls?.[0];
      assert.ok(tc);
      assert.equal(tc.id, "bad_0");
      assert.throws(() => JSON.parse(tc.function.arguments));
    });
    fs.writeFileSync(file, "malformed: { '0': gibberish }\nreplies: [{ text: hi }]");
    assert.throws(() => loadFakeScript(file, registry, readDataFile), /malformed\.0/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
