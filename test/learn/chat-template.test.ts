/**
 * Exported SFT samples rendered through real chat templates (Qwen2.5's and Llama 3.1's tool-calling
 * templates, the Jinja alone, no tokenizer; fixtures/chat-templates, with their source and licence):
 * the tool-call text carries the arguments as a JSON object (not a JSON string inside JSON) and the
 * rendered conversation ends on the assistant's turn. The OpenAI dialect's JSON-string arguments are
 * double-encoded by both templates: what `--args-as object` is for.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Template } from "@huggingface/jinja";
import type { TrialRecord } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { type ChatEncoding, type SftDialect, type SftLine, sftLine } from "../../src/learn/sft-format.ts";
import { runWithRecords } from "../agents/llm-support.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "chat-templates");
const qwen = new Template(fs.readFileSync(path.join(FIXTURES, "qwen2.5-instruct.jinja"), "utf8"));
const llama = new Template(fs.readFileSync(path.join(FIXTURES, "llama3.1-instruct.jinja"), "utf8"));

const scripted = runWithRecords({
  families: ["lost-reply", "approved-replacement", "needs-approval"],
  difficulties: [1],
  agents: ["cautious"],
  trials: 2,
});

/** The agent's steps of a record (setup steps are the prompt's), grouped as the SFT line groups them. */
function agentCalls(record: TrialRecord): { name: string; args: JsonObject }[] {
  return record.steps.filter((s) => !s.setup).map((s) => ({ name: s.action.tool, args: s.action.args }));
}

function render(template: Template, line: SftLine): string {
  return template.render({
    messages: line.messages,
    tools: line.tools,
    bos_token: "<|begin_of_text|>",
    eos_token: "<|eot_id|>",
    add_generation_prompt: false,
  });
}

/**
 * Qwen2.5: each call is `<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>` in an assistant
 * turn (the system turn's format example, with placeholders, left out).
 */
function qwenCalls(text: string): { name: string; arguments: unknown }[] {
  const turns = text.includes("<tools>") ? text.slice(text.indexOf("<|im_end|>")) : text;
  return [...turns.matchAll(/<tool_call>\n(.*?)\n<\/tool_call>/gs)].map((m) => JSON.parse(m[1]));
}

/** Llama 3.1: each assistant turn is `{"name": ..., "parameters": ...}<|eot_id|>`. */
function llamaCalls(text: string): { name: string; parameters: unknown }[] {
  return [...text.matchAll(/<\|start_header_id\|>assistant<\|end_header_id\|>\n\n(.*?)<\|eot_id\|>/gs)].map(
    (m) => JSON.parse(m[1]),
  );
}

const OBJECT_ENCODINGS: { dialect: SftDialect; encoding: ChatEncoding }[] = [
  { dialect: "trl", encoding: {} },
  { dialect: "openai", encoding: { args: "object" } },
];

for (const { dialect, encoding } of OBJECT_ENCODINGS) {
  const label = `${dialect}${encoding.args ? ` --args-as ${encoding.args}` : ""}`;

  test(`Qwen2.5 template, ${label}: tool calls carry JSON-object arguments; the text ends on the assistant turn`, async () => {
    const { records } = await scripted;
    const passed = records.filter((r) => r.outcome === "passed");
    assert.ok(passed.length >= 4);
    for (const record of passed) {
      const text = render(qwen, sftLine(record, dialect, encoding));
      const calls = qwenCalls(text);
      assert.deepEqual(
        calls.map((c) => ({ name: c.name, args: c.arguments })),
        agentCalls(record),
      );
      for (const c of calls) assert.equal(typeof c.arguments, "object", "arguments are not a JSON string");
      // the tools block lists the tools as JSON objects
      const tools = text.match(/<tools>\n(.*?)\n<\/tools>/s)?.[1].split("\n") ?? [];
      assert.equal(tools.length, (sftLine(record).tools as unknown[]).length);
      for (const t of tools) assert.equal(JSON.parse(t).type, "function");
      // the last turn is the assistant's: no tool response (a user turn in Qwen's template) after it
      const lastAssistant = text.lastIndexOf("<|im_start|>assistant\n");
      assert.ok(lastAssistant > 0);
      assert.match(
        text.slice(lastAssistant),
        /^<\|im_start\|>assistant\n<tool_call>\n.*<\/tool_call><\|im_end\|>\n$/s,
      );
    }
  });

  test(`Llama 3.1 template, ${label}: {"name", "parameters"} with an object; the text ends on the assistant turn`, async () => {
    const { records } = await scripted;
    for (const record of records.filter((r) => r.outcome === "passed")) {
      const text = render(llama, sftLine(record, dialect, encoding));
      const calls = llamaCalls(text);
      assert.deepEqual(
        calls.map((c) => ({ name: c.name, args: c.parameters })),
        agentCalls(record),
      );
      for (const c of calls) assert.equal(typeof c.parameters, "object");
      assert.ok(text.endsWith("<|eot_id|>"));
      const headers = [...text.matchAll(/<\|start_header_id\|>(\w+)<\|end_header_id\|>/g)].map((m) => m[1]);
      assert.equal(headers[headers.length - 1], "assistant");
    }
  });
}

test("Qwen2.5 template: a parallel reply renders as one assistant turn with one <tool_call> per call", async () => {
  const { records } = await scripted;
  const record = records.find((r) => r.outcome === "passed" && r.steps.length >= 3);
  assert.ok(record);
  // the first two steps as one reply of two tool calls (as an LLM agent's batch is recorded)
  const steps = record.steps.map((s, i) =>
    i < 2 ? { ...s, meta: { ...s.meta, batchIndex: i, batchSize: 2 } } : s,
  );
  const text = render(qwen, sftLine({ ...record, steps }, "trl"));
  const firstTurn = text.split("<|im_start|>assistant\n")[1].split("<|im_end|>")[0];
  assert.deepEqual(
    qwenCalls(firstTurn).map((c) => c.name),
    steps.slice(0, 2).map((s) => s.action.tool),
  );
});

test("the OpenAI dialect's JSON-string arguments are double-encoded by both templates (hence --args-as object)", async () => {
  const { records } = await scripted;
  const record = records.find((r) => r.outcome === "passed");
  assert.ok(record);
  const line = sftLine(record, "openai");
  const q = qwenCalls(render(qwen, line));
  assert.equal(typeof q[0].arguments, "string", "Qwen2.5's template tojson's a string: JSON inside JSON");
  assert.deepEqual(JSON.parse(q[0].arguments as string), agentCalls(record)[0].args);
  const l = llamaCalls(render(llama, line));
  assert.equal(typeof l[0].parameters, "string");
});
