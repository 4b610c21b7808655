/**
 * One setup for both program agents (`cmd:` over MCP, `cmd-jsonl:` over stdio): the command, the
 * `PROVING_AGENT_*` settings, the sandbox choice, the recorded ref and the errors are decided by
 * `resolveProgramAgent`, so both kinds must agree on them (no program is started here).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { resolveCmdJsonlAgent } from "../../src/agents/cmd/jsonl-agent.ts";
import { CMD_JSONL_PROTOCOL } from "../../src/agents/cmd/jsonl-protocol.ts";
import { CMD_MCP_PROTOCOL } from "../../src/agents/cmd/mcp-protocol.ts";
import type { ProgramOptions } from "../../src/agents/cmd/program.ts";
import { describeExit } from "../../src/agents/cmd/program.ts";
import { programAgent } from "../../src/agents/cmd/program-agent.ts";
import { programSettings } from "../../src/agents/cmd/program-settings.ts";
import type { EpisodeInfo } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { resolveCmdAgent } from "../../src/mcp/cmd-agent.ts";

const KINDS = [
  { prefix: "cmd", resolve: resolveCmdAgent, protocol: CMD_MCP_PROTOCOL },
  { prefix: "cmd-jsonl", resolve: resolveCmdJsonlAgent, protocol: CMD_JSONL_PROTOCOL },
] as const;

const EPISODE: EpisodeInfo = {
  episodeId: "ep-1",
  world: "device-support@1",
  instruction: "fix it",
  tools: [],
  samplingSeed: 7,
};

describe("program agents: one setup for cmd: and cmd-jsonl:", () => {
  for (const kind of KINDS) {
    test(`${kind.prefix}: an empty command is bad_agent_spec (a config fault) with an example of the kind`, () => {
      for (const rest of ["", "   "]) {
        assert.throws(
          () => kind.resolve(rest, `${kind.prefix}:${rest}`, process.cwd(), { PATH: process.env.PATH }),
          (err: unknown) =>
            err instanceof ProvingError &&
            err.code === "bad_agent_spec" &&
            err.fault === "config" &&
            err.message.includes(`e.g. ${kind.prefix}:"python my_agent.py"`),
        );
      }
    });

    test(`${kind.prefix}: the ref records the trimmed command, protocol, sandbox and passed names`, () => {
      const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "program-agent-"));
      try {
        const resolved = kind.resolve("  node agent.mjs ", `${kind.prefix}:node agent.mjs`, cwd, {
          PATH: process.env.PATH,
          PROVING_AGENT_SANDBOX: "off",
          PROVING_AGENT_ENV: " OPENAI_API_KEY, ,MY_VAR",
        });
        assert.equal(resolved.ref.id, `${kind.prefix}:node agent.mjs`);
        assert.equal(resolved.ref.kind, kind.prefix);
        assert.equal(resolved.ref.spec, `${kind.prefix}:node agent.mjs`);
        assert.deepEqual(resolved.ref.config, {
          command: "node agent.mjs",
          cwd,
          protocol: kind.protocol,
          sandbox: "none",
          passEnv: ["OPENAI_API_KEY", "MY_VAR"],
        });
      } finally {
        fs.rmSync(cwd, { recursive: true, force: true });
      }
    });

    test(`${kind.prefix}: a required sandbox without bubblewrap on PATH is bad_agent_spec`, () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), "no-bwrap-"));
      try {
        assert.throws(
          () =>
            kind.resolve("node agent.mjs", `${kind.prefix}:node agent.mjs`, process.cwd(), {
              PATH: empty,
              PROVING_AGENT_SANDBOX: "require",
            }),
          (err: unknown) =>
            err instanceof ProvingError &&
            err.code === "bad_agent_spec" &&
            err.message.startsWith(`${kind.prefix}:node agent.mjs: the agent sandbox is required`),
        );
        // auto falls back to no sandbox where there is none
        const resolved = kind.resolve("node agent.mjs", `${kind.prefix}:x`, process.cwd(), {
          PATH: empty,
        });
        assert.equal((resolved.ref.config as { sandbox: string }).sandbox, "none");
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });
  }

  test("programSettings: auto by default and for unknown modes; lists split and trimmed", () => {
    assert.deepEqual(programSettings({}), { passEnv: [], sandbox: "auto", readOnly: [] });
    assert.equal(programSettings({ PROVING_AGENT_SANDBOX: "maybe" }).sandbox, "auto");
    assert.equal(programSettings({ PROVING_AGENT_SANDBOX: "off" }).sandbox, "off");
    assert.equal(programSettings({ PROVING_AGENT_SANDBOX: "require" }).sandbox, "require");
    assert.deepEqual(programSettings({ PROVING_AGENT_READ: "/a: /b ::/c" }).readOnly, ["/a", "/b", "/c"]);
  });

  test("programAgent: one set of episode traces per agent, unless the options give them", async () => {
    const seen: ProgramOptions[] = [];
    const start = (options: ProgramOptions) => {
      seen.push(options);
      return { act: async () => ({ tool: "noop", args: {} }) };
    };
    const options: ProgramOptions = { command: "true", cwd: "/" };
    const a = programAgent("cmd-jsonl", options, start);
    const b = programAgent("cmd", options, start);
    assert.equal(a.id, "cmd-jsonl:true");
    assert.equal(b.id, "cmd:true");
    await a.start(EPISODE);
    await a.start({ ...EPISODE, episodeId: "ep-2" });
    await b.start(EPISODE);
    assert.ok(seen[0]?.traces !== undefined);
    assert.equal(seen[0]?.traces, seen[1]?.traces, "the same agent keeps its traces across episodes");
    assert.notEqual(seen[0]?.traces, seen[2]?.traces, "each agent has its own");
    assert.equal(options.traces, undefined, "the caller's options are not changed");
    const given = seen[2]!.traces!;
    const c = programAgent("cmd", { ...options, traces: given }, start);
    await c.start(EPISODE);
    assert.equal(seen[3]?.traces, given);
  });

  test("describeExit: a failed start, an exit code, a signal, the stderr tail", () => {
    assert.equal(
      describeExit("python a.py", { error: new Error("spawn ENOENT") }, "ignored", "before answering"),
      "could not start `python a.py`: spawn ENOENT",
    );
    assert.equal(
      describeExit("a", { code: 3, signal: null }, "  \n", "before answering"),
      "`a` exited with code 3 before answering",
    );
    const long = `${"x".repeat(600)}END\n`;
    const withSignal = describeExit("a", { code: null, signal: "SIGKILL" }, long, "before the episode ended");
    assert.ok(withSignal.startsWith("`a` was killed by SIGKILL before the episode ended; stderr: "));
    assert.ok(withSignal.endsWith("END"));
    assert.equal(withSignal.length - withSignal.indexOf("stderr: ") - "stderr: ".length, 500);
  });
});
