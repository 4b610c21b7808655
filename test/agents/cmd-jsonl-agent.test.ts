/** External agents over stdio JSON lines (`cmd-jsonl:COMMAND`), through whole episodes. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { outcomesOf, runWithRecords } from "./llm-support.ts";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "jsonl-policy.ts");
// these tests are about the protocol, run unsandboxed (test/agents/cmd-sandbox.test.ts covers the
// sandbox); the program starts in a private directory, so tsx is named by its absolute URL
process.env.PROVING_AGENT_SANDBOX = "off";
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const cmd = (...args: string[]) =>
  `cmd-jsonl:node --import ${TSX} ${JSON.stringify(fixture)} ${args.join(" ")}`;

test("a program playing cautious over JSON lines passes lost-reply; its meta is summed", async () => {
  const spec = cmd("cautious");
  const { result, records } = await runWithRecords({
    agents: [spec],
    families: ["lost-reply"],
    difficulties: [1, 2],
  });
  assert.deepEqual(outcomesOf(records), ["passed", "passed"]);
  for (const r of records) assert.equal(r.stats.tokensIn, 10 * r.steps.length);
  const ref = result.manifest[0].agent;
  assert.equal(ref.kind, "cmd-jsonl");
  assert.equal(ref.config?.protocol, "jsonl/1");
  assert.match(String(ref.config?.command), /jsonl-policy\.ts/);
});

test("a program playing claims-success is caught", async () => {
  const { records } = await runWithRecords({
    agents: [cmd("claims-success")],
    families: ["lost-reply"],
    difficulties: [1],
  });
  assert.equal(records[0].outcome, "violated");
  assert.ok(records[0].verdict?.violations.some((v) => v.code === "unsupported_claim"));
});

test("a non-JSON line or an early exit is agent_error, with the stderr tail", async () => {
  const { records } = await runWithRecords({
    agents: [cmd("cautious", "garbage"), cmd("cautious", "exit")],
    families: ["approved-replacement"],
    difficulties: [1],
  });
  const [garbage, exited] = records;
  assert.equal(garbage.outcome, "agent_error");
  assert.match(garbage.reason, /bad_action_line.*thinking about it/);
  assert.equal(exited.outcome, "agent_error");
  assert.match(exited.reason, /agent_exited.*code 3.*out of ideas/);
  assert.equal(exited.steps.length, 1);
});

test("a program that ignores `end` is stopped", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-cmd-"));
  const pidFile = path.join(dir, "pid");
  try {
    const { records } = await runWithRecords({
      agents: [cmd("cautious", "hang-on-end", JSON.stringify(pidFile))],
      families: ["approved-replacement"],
      difficulties: [1],
    });
    assert.equal(records[0].outcome, "passed");
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    assert.ok(pid > 0);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, "the agent process is gone");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a command that does not exist is agent_error, not a crash", async () => {
  const { records } = await runWithRecords({
    agents: ["cmd-jsonl:./no-such-agent-program --flag"],
    families: ["approved-replacement"],
    difficulties: [1],
  });
  assert.equal(records[0].outcome, "agent_error");
  assert.match(records[0].reason, /code 127|not found/);
});
