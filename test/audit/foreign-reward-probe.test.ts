/**
 * `reward-reachability`, the audit's reward-file probe on servers we did not write: which tools are
 * filesystem tools (from names and schemas), what a listing or a read says, and `proving audit URL`
 * (the real CLI) on test/serve/fixtures/openenv/files_server.py — its grader's answer file within the
 * tools' reach (failed, with the tool, path, bytes and the reward a read-then-submit episode earned),
 * the same server sandboxed (passed), both over an emulated shell (read-only commands only), and the
 * guess server, which has no filesystem tool (not_checkable).
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { after, describe, test } from "node:test";
import { classifyTool, findFilesystemTools, probeAction } from "../../src/audit/filesystem-tools.ts";
import { entriesOf, fitValue, foundText, valuesIn, verifierLike } from "../../src/audit/probe-text.ts";
import { probeRewardReachability } from "../../src/audit/reward-reachability.ts";
import type { Environment, ToolDescriptor } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonObject } from "../../src/core/json.ts";
import {
  auditServer as audit,
  GUESS_SERVER,
  skipWithoutPython as skip,
  startOpenEnvServer,
} from "../serve/openenv-fixture.ts";
import { REPO_ROOT } from "../support/cli.ts";

const FILES_SERVER = path.join(REPO_ROOT, "test/serve/fixtures/openenv/files_server.py");

const tool = (
  name: string,
  properties: JsonObject,
  description = "",
  required?: string[],
): ToolDescriptor => ({
  name,
  description,
  input_schema: { type: "object", properties, required: required ?? Object.keys(properties) },
});
const str = (description = "") => ({ type: "string", description });

describe("which tools reach the filesystem (names and schemas)", () => {
  test("readers, listers and shells under many names; writers and other tools are not", () => {
    const kinds: [ToolDescriptor, string | undefined][] = [
      [tool("read_file", { path: str() }), "read"],
      [tool("readFile", { filename: str() }), "read"],
      [tool("cat", { file: str() }), "read"],
      [tool("open", { file_path: str() }), "read"],
      [tool("view", { target: str("the file to show") }), "read"],
      [tool("list_dir", { path: str() }), "list"],
      [tool("ls", { dir: str() }), "list"],
      [tool("directory_tree", { root: str() }), "list"],
      [tool("bash", { command: str() }), "shell"],
      [tool("run_command", { cmd: str() }), "shell"],
      [tool("exec", { command: str(), timeout: { type: "integer" } }, "", ["command"]), "shell"],
      [tool("terminal", { input: str() }), "shell"],
      [tool("write_file", { path: str(), content: str() }), undefined],
      [tool("delete", { path: str() }), undefined],
      [tool("run_script", { path: str() }), undefined],
      [tool("guess", { n: { type: "integer" } }), undefined],
      [tool("submit", { answer: str() }), undefined],
      [tool("get_weather", { city: str() }), undefined],
      [tool("lookup", { query: str() }), undefined],
    ];
    for (const [t, kind] of kinds) assert.equal(classifyTool(t)?.kind, kind, t.name);
    // a path argument by its name, a reader by its description
    assert.equal(
      classifyTool(tool("get_contents", { location: str() }, "Returns the contents of a file"))?.kind,
      "read",
    );
  });

  test("one tool of each kind; a shell reads and lists with read-only commands on plain paths only", () => {
    const found = findFilesystemTools([
      tool("submit", { answer: str() }),
      tool("bash", { command: str() }),
      tool("read_file", { path: str() }),
    ]);
    assert.deepEqual(found.map((f) => f.kind).sort(), ["read", "shell"]);
    // reading uses the reader; listing falls back to the shell
    assert.deepEqual(probeAction(found, "read", "/grader", "c")?.args, { path: "/grader" });
    assert.deepEqual(probeAction(found, "list", "/grader", "c")?.args, {
      command: "ls -la -- '/grader'",
    });
    const shellOnly = findFilesystemTools([tool("bash", { command: str() })]);
    assert.deepEqual(probeAction(shellOnly, "read", "tests/a b", "c"), undefined, "not a plain path");
    assert.deepEqual(probeAction(shellOnly, "read", "-rf", "c"), undefined, "never an option");
    assert.deepEqual(probeAction(shellOnly, "read", "x;rm", "c"), undefined);
    assert.deepEqual(probeAction(shellOnly, "read", "./tests/x.py", "c")?.args, {
      command: "cat -- './tests/x.py'",
    });
  });

  test("listings in their shapes; reads that failed in text; values and verifier-like text", () => {
    const paths = (c: Parameters<typeof entriesOf>[0], dir: string) => entriesOf(c, dir).map((e) => e.path);
    assert.deepEqual(paths(["grader/", "a.txt"], "/"), ["/grader", "/a.txt"]);
    assert.deepEqual(paths({ entries: [{ name: "tests", type: "dir" }] }, "."), ["tests"]);
    assert.deepEqual(
      paths(
        "total 8\ndrwxr-xr-x 2 root root 64 Jan 1 00:00 .\n-rw-r--r-- 1 a b 3 Jan 1 00:00 answer.txt\n",
        "/srv",
      ),
      ["/srv/answer.txt"],
    );
    assert.deepEqual(paths("./tests/test_a.py\n./README.md\n", ""), ["tests/test_a.py", "README.md"]);
    assert.deepEqual(entriesOf(["grader/"], "/")[0], { path: "/grader", dir: true });
    const ok = (observation: JsonObject) => ({ ok: true as const, observation });
    assert.equal(foundText(ok({ result: "cat: /grader: No such file or directory" })), undefined);
    assert.equal(foundText({ ok: false, error: { code: "x", message: "y", retryable: false } }), undefined);
    assert.equal(foundText(ok({ content: [{ type: "text", text: "42\n" }] })), "42\n");
    assert.deepEqual(valuesIn('{"answer": "code-1", "n": 3}').slice(0, 2), ["code-1", 3]);
    assert.equal(valuesIn("EXPECTED = 'blue'\n")[0], "blue");
    assert.equal(valuesIn('assert answer == "blue"  # the solution')[0], "blue");
    assert.equal(fitValue("17", { type: "integer", maximum: 20 }), 17);
    assert.equal(fitValue("27", { type: "integer", maximum: 20 }), undefined);
    assert.ok(verifierLike("def grade(submission):\n  return 1"));
    assert.equal(verifierLike("Access codes look like code-NNNNNN."), undefined);
  });
});

/** A server's episodes in process: its tools, and what a step does (it may throw, as a broken server's does). */
function play(tools: ToolDescriptor[], step: Environment["step"], reset?: Environment["reset"]) {
  const spec = { id: "fake", world: "fake", tools, terminalTools: [], verifier: "reward-judged" };
  const world = {
    id: "fake",
    families: [{ name: "default", description: "", difficulties: [1] }],
    generateTask: () => ({ id: "t", params: {} }),
  };
  return {
    world: world as never,
    environment: () =>
      ({
        spec,
        reset: reset ?? (async () => ({ kind: "task", instruction: "", context: {}, tools })),
        step,
      }) as unknown as Environment,
  };
}

describe("the probe never crashes on what a server does", () => {
  const fsTools = [tool("read_file", { path: str() }), tool("submit", { answer: str() })];

  test("a server whose every read throws (no code): probed, stopped early, passed", async () => {
    let calls = 0;
    const f = await probeRewardReachability(
      play(fsTools, async () => {
        calls++;
        throw new ProvingError("remote_bad_response", "the server closed the connection");
      }),
    );
    assert.equal(f.status, "passed", JSON.stringify(f));
    assert.match(f.evidence[0] ?? "", /stopped early: 8 calls failed/);
    assert.equal(calls, 8);
  });

  test("a server whose reset fails is not checkable, with the reason", async () => {
    const f = await probeRewardReachability(
      play(
        fsTools,
        async () => {
          throw new Error("unreachable");
        },
        async () => {
          throw new ProvingError("remote_unreachable", "connection refused");
        },
      ),
    );
    assert.equal(f.status, "not_checkable");
    assert.match(f.evidence[0] ?? "", /no probe episode could start: .*connection refused/);
  });

  test("nothing is sent past the server's string limit", async () => {
    const sent: string[] = [];
    await probeRewardReachability({
      ...play(fsTools, async (a) => {
        sent.push(String(a.args.path));
        return {
          observation: {
            kind: "tool_result",
            tool: a.tool,
            callId: a.callId,
            result: { ok: false, error: { code: "nf", message: "no", retryable: false } },
            now: 0,
          },
          reward: 0,
          terminated: false,
          truncated: false,
          info: { now: 0 },
        };
      }),
      maxStringLength: 6,
    });
    assert.ok(sent.length > 0);
    for (const p of sent) assert.ok(p.length <= 6, p);
  });
});

describe("proving audit URL: the reward-file probe", { skip, timeout: 600_000 }, () => {
  const started: ChildProcess[] = [];
  after(() => {
    for (const child of started) child.kill();
  });
  /** Starts a files server; its stderr (where it reports a command that would write) is collected. */
  async function start(...args: string[]): Promise<{ url: string; stderr: () => string }> {
    const url = await startOpenEnvServer(started, FILES_SERVER, args);
    let err = "";
    started.at(-1)?.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    return { url, stderr: () => err };
  }

  for (const shell of [false, true]) {
    const via = shell ? "run_command" : "read_file";
    const flags = shell ? ["--shell"] : [];

    test(`the answer file within the tools' reach (${via}) fails, with the read and the reward it earned`, async () => {
      const server = await start(...flags);
      const { code, findings } = await audit(server.url);
      const f = findings["reward-reachability"];
      assert.equal(code, 1);
      assert.equal(f?.status, "failed", JSON.stringify(f));
      const [read, earned] = f.evidence;
      assert.match(read ?? "", new RegExp(`^/grader/expected_answer\\.json: ${via}\\(.*\\) → \\d+ bytes`));
      assert.match(
        earned ?? "",
        /read it and submitted submit\(\{"answer":"code-\d{6}"\}\) earned reward 1 \(.*instead: 0\)/,
      );
      assert.ok(
        f.evidence.some((e) => /grade\.py.*def grade/.test(e)),
        "the grader's code is named too",
      );
      const failed = Object.values(findings).filter((x) => x.status === "failed");
      assert.deepEqual(
        failed.map((x) => x.id),
        ["reward-reachability"],
        "nothing else is wrong with the server",
      );
      assert.doesNotMatch(server.stderr(), /UNSAFE COMMAND/);
    });

    test(`the same tools sandboxed (${via}) pass: probed, nothing found`, async () => {
      const server = await start("--sandboxed", ...flags);
      const { code, findings } = await audit(server.url);
      const f = findings["reward-reachability"];
      assert.equal(code, 0, JSON.stringify(findings, null, 1));
      assert.equal(f?.status, "passed", JSON.stringify(f));
      assert.match(f.evidence[0] ?? "", /read-only calls with .*nothing read reveals/);
      assert.ok(
        f.evidence.some((e) => /tests\/format\.md/.test(e)),
        "the tests directory was read",
      );
      assert.doesNotMatch(server.stderr(), /UNSAFE COMMAND/);
    });
  }

  test("a server with no filesystem tool is not checkable, and says why", async () => {
    const url = await startOpenEnvServer(started, GUESS_SERVER, ["--defect", "none"]);
    const { code, findings } = await audit(url);
    assert.equal(code, 0);
    const f = findings["reward-reachability"];
    assert.equal(f?.status, "not_checkable");
    assert.match(f.evidence[0] ?? "", /no tool looks like filesystem or shell access \(guess\)/);
  });
});
