/** External agents acting through MCP (`cmd:COMMAND`), through whole episodes. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { outcomesOf, runWithRecords } from "./llm-support.ts";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "mcp-policy.ts");
// these tests are about the protocol, run unsandboxed (test/agents/cmd-sandbox.test.ts covers the
// sandbox); the program starts in a private directory, so tsx is named by its absolute URL
process.env.PROVING_AGENT_SANDBOX = "off";
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const cmd = (...args: string[]) => `cmd:node --import ${TSX} ${JSON.stringify(fixture)} ${args.join(" ")}`;

interface Written {
  pid: number;
  url: string;
  outcome?: string;
  verdict?: { passed: boolean };
  tool?: string;
  ok?: boolean;
  isError?: boolean;
}

/**
 * Dead: no such process, or a zombie (a program run by `sh -c` outlives its killed shell as a zombie
 * until init reaps it; some container inits are slow to).
 */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** The process is gone and nothing answers at its MCP endpoint any more. */
async function assertNoLeak(info: Written): Promise<void> {
  assert.ok(info.pid > 0);
  assert.ok(isDead(info.pid), `the agent process ${info.pid} is gone`);
  assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  await assert.rejects(fetch(info.url, { method: "POST" }), "the MCP server is closed");
}

describe("cmd: agents over MCP", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-cmd-mcp-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fileFor = (name: string) => path.join(dir, `${name}.json`);
  const read = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Written;

  test("a program playing cautious through MCP passes lost-reply; the terminal call gets the verdict; nothing is left running", async () => {
    const file = fileFor("cautious");
    const { result, records } = await runWithRecords({
      agents: [cmd("cautious", "play", JSON.stringify(file))],
      families: ["lost-reply"],
      difficulties: [2],
    });
    assert.deepEqual(outcomesOf(records), ["passed"]);
    assert.ok(records[0].steps.length > 2);
    const ref = result.manifest[0].agent;
    assert.equal(ref.kind, "cmd");
    assert.equal(ref.config?.protocol, "mcp-http/1");
    assert.match(String(ref.config?.command), /mcp-policy\.ts/);
    const written = read(file);
    assert.equal(written.outcome, "passed");
    assert.equal(written.verdict?.passed, true);
    // the terminal call gets the world's own answer (close_case ok), with the verdict added
    assert.equal(written.tool, "close_case");
    assert.equal(written.ok, true);
    assert.equal(written.isError, false);
    await assertNoLeak(written);
  });

  test("several episodes each get their own program and server", async () => {
    const { records } = await runWithRecords({
      agents: [cmd("cautious")],
      families: ["lost-reply", "approved-replacement"],
      difficulties: [1],
    });
    assert.deepEqual(outcomesOf(records), ["passed", "passed"]);
  });

  test("a program that closes as created after the timeout is caught with unsupported_claim", async () => {
    const { records } = await runWithRecords({
      agents: [cmd("claims-success")],
      families: ["lost-reply"],
      difficulties: [1],
    });
    assert.equal(records[0].outcome, "violated");
    assert.ok(records[0].verdict?.violations.some((v) => v.code === "unsupported_claim"));
  });

  test("a program that exits before the episode ends is agent_error, with its stderr tail", async () => {
    const file = fileFor("exit");
    const { records } = await runWithRecords({
      agents: [cmd("cautious", "exit", JSON.stringify(file))],
      families: ["approved-replacement"],
      difficulties: [1],
    });
    const [r] = records as [TrialRecord];
    assert.equal(r.outcome, "agent_error");
    assert.match(r.reason, /agent_disconnected.*code 3.*out of ideas/);
    assert.equal(r.steps.length, 1);
    await assertNoLeak(read(file));
  });

  test("a program without the bearer token is refused: agent_error", async () => {
    const { records } = await runWithRecords({
      agents: [cmd("cautious", "no-token")],
      families: ["approved-replacement"],
      difficulties: [1],
    });
    assert.equal(records[0].outcome, "agent_error");
    assert.equal(records[0].steps.length, 0);
    assert.match(records[0].reason, /UNAUTHORIZED|401/);
  });

  test("a program that keeps running after the verdict (ignoring SIGTERM) is killed; the server is closed", async () => {
    const file = fileFor("hang");
    const { records } = await runWithRecords({
      agents: [cmd("cautious", "hang-on-end", JSON.stringify(file))],
      families: ["approved-replacement"],
      difficulties: [1],
    });
    assert.equal(records[0].outcome, "passed");
    const written = read(file);
    assert.equal(written.outcome, "passed");
    await assertNoLeak(written);
  });

  test("a command that does not exist is agent_error, not a crash", async () => {
    const { records } = await runWithRecords({
      agents: ["cmd:./no-such-agent-program --flag"],
      families: ["approved-replacement"],
      difficulties: [1],
    });
    assert.equal(records[0].outcome, "agent_error");
    assert.match(records[0].reason, /code 127|not found/);
  });
});
