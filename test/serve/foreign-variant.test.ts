/**
 * `proving serve --remote URL [--variant ...]`: our server serves an OpenEnv server we did not write
 * (the stdlib Python guess server of test/serve/fixtures/openenv), bare or wrapped in harness layers,
 * to our clients; each episode is recorded as a trial (reward-judged). Played through the real CLI
 * over real sockets. The guess server takes one session at a time here (`--max-sessions 1`), so an
 * episode can play only once the session of the one before it was closed when its client left.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { TaskObservation, ToolResult, TrialRecord } from "../../src/core/contracts.ts";
import { ServeClient, type StepEnvelope, type WireAction, WsEpisodeClient } from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { runCli, spawnCli } from "../support/cli.ts";
import { GUESS_SERVER, skipWithoutPython as skip, startOpenEnvServer } from "./openenv-fixture.ts";
import { firstLine } from "./play.ts";

const started: ChildProcess[] = [];
const FOREIGN_WORLD = "GuessEnvironment@1.0.0";
/** A Rule on the foreign world: the shortcut tool `skip_level` is disabled (refused, and not listed). */
const NO_SKIP = { layers: [{ id: "rule.disable-tool@1", params: { tool: "skip_level" } }] };

/** Starts `proving serve --remote URL ...` on a free loopback port; resolves its JSON address line. */
async function serve(
  args: string[],
): Promise<{ child: ChildProcess; url: string; line: Record<string, unknown> }> {
  const child = spawnCli(["serve", "--port", "0", "--json", "--heartbeat-s", "0", ...args]);
  started.push(child);
  let err = "";
  child.stderr?.on("data", (c) => {
    err += String(c);
  });
  const first = await firstLine(child).catch((e: Error) => {
    throw new Error(`${e.message}\n${err}`);
  });
  const line = JSON.parse(first) as Record<string, unknown>;
  return { child, url: String(line.url), line };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

const resultOf = (e: StepEnvelope) =>
  (e.observation as unknown as { kind: string; result: ToolResult }).result;

/** Bisects the secret with `guess` until the episode ends; the guesses sent. */
async function bisect(step: (a: WireAction) => Promise<StepEnvelope>): Promise<StepEnvelope> {
  let lo = 1;
  let hi = 1_000_000;
  for (;;) {
    const n = Math.floor((lo + hi) / 2);
    const e = await step({ tool: "guess", args: { n } });
    if (e.done) return e;
    const r = resultOf(e);
    assert.ok(r.ok, JSON.stringify(r));
    const answer = (r.observation as { result: string }).result;
    if (answer === "higher") lo = n + 1;
    else hi = n - 1;
  }
}

/** Retries `attempt` while it fails (at most `limitMs`): a closed session frees the server a moment later. */
async function retrying<T>(attempt: () => Promise<T>, limitMs = 15_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("proving serve --remote: a foreign OpenEnv server, served and harnessed", {
  skip,
  timeout: 300_000,
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-foreign-variant-"));
  after(() => {
    for (const child of started) child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("--variant: a Rule refuses the forbidden tool, an allowed one reaches the server; trials recorded", async () => {
    const foreign = await startOpenEnvServer(started, GUESS_SERVER, [
      "--defect",
      "shortcut",
      "--max-sessions",
      "1",
    ]);
    const db = path.join(dir, "variant.db");
    const { child, url, line } = await serve([
      "--remote",
      foreign,
      "--variant",
      JSON.stringify(NO_SKIP),
      "--store",
      db,
      "--experiment",
      "foreign-variant",
    ]);
    assert.equal(line.world, FOREIGN_WORLD);
    assert.match(String(line.environment), /^v-/, "the variant id");
    let verdict: unknown;
    try {
      // the served tools: the foreign server's, less the disabled one
      const meta = (await (await fetch(`${url}/metadata`)).json()) as { tools: { name: string }[] };
      assert.deepEqual(
        meta.tools.map((t) => t.name),
        ["guess"],
      );
      // 1. an episode left by its client after one guess
      const a = await WsEpisodeClient.connect(url);
      const first = await a.reset({ seed: 7 });
      assert.deepEqual(
        (first.observation as TaskObservation).tools.map((t) => t.name),
        ["guess"],
      );
      const refused = await a.step({ tool: "skip_level", args: {} });
      assert.equal(refused.done, false);
      assert.deepEqual(resultOf(refused), {
        ok: false,
        error: { code: "tool_disabled", message: "skip_level is disabled", retryable: false },
      });
      const guessed = resultOf(await a.step({ tool: "guess", args: { n: 500_000 } }));
      assert.ok(guessed.ok, JSON.stringify(guessed));
      assert.match(String((guessed.observation as { result: string }).result), /^(higher|lower|correct)$/);
      await a.close();
      // 2. a full episode: it can play only once the first episode's foreign session was closed
      const b = await WsEpisodeClient.connect(url);
      const last = await retrying(async () => {
        await b.reset({ seed: 11 });
        return bisect((x) => b.step(x));
      });
      assert.equal(last.reward, 1);
      verdict = last.metadata.verdict;
      await b.close();
      // 3. an episode left open when serve stops
      const c = await WsEpisodeClient.connect(url);
      await retrying(async () => {
        await c.reset({ seed: 12 });
        await c.step({ tool: "guess", args: { n: 1 } });
      });
    } finally {
      await stop(child);
    }
    // serve stopped with a foreign session open (its own exit would drop it too): the server takes a new one
    const direct = await retrying(() => WsEpisodeClient.connect(foreign));
    try {
      await retrying(() => direct.reset({ seed: 1 }));
    } finally {
      await direct.close();
    }
    // the full episode is a trial of the served variant, reward-judged
    const store = await openStore(db);
    try {
      const manifest = await store.getManifest("foreign-variant");
      const records = new Map<string, TrialRecord>();
      for (const spec of manifest) {
        const r = await store.getTrial(spec.id);
        if (r) records.set(spec.id, r);
      }
      const outcomes = manifest.map((s) => records.get(s.id)?.outcome ?? "missing");
      assert.ok(outcomes.includes("passed"), outcomes.join());
      const passed = [...records.values()].find((r) => r.outcome === "passed")!;
      assert.equal(passed.spec.world, FOREIGN_WORLD);
      assert.equal(passed.spec.variantId, line.environment);
      assert.equal(passed.verdict?.verifier, "reward-judged");
      assert.deepEqual(passed.verdict, verdict, "the verdict the client was told");
      assert.equal(passed.steps.at(-1)?.action.tool, "guess");
    } finally {
      await store.close();
    }
  });

  test("without --variant: the foreign world, bare, over HTTP and MCP", async () => {
    const foreign = await startOpenEnvServer(started, GUESS_SERVER, ["--defect", "none"]);
    const { child, url, line } = await serve(["--remote", foreign]);
    try {
      assert.equal(line.environment, FOREIGN_WORLD);
      assert.equal(line.remote, foreign);
      const http = new ServeClient(url);
      const first = await http.reset({ seed: 3 });
      const id = String(first.metadata.episode_id);
      const last = await bisect((x) => http.step(id, x));
      assert.equal(last.reward, 1);
      assert.equal(
        (last.metadata.verdict as { verifier: string; passed: boolean }).verifier,
        "reward-judged",
      );
      assert.equal((last.metadata.verdict as { passed: boolean }).passed, true);
      // an MCP client: a tool call on an HTTP episode reaches the foreign server
      const mcp = await http.reset({ seed: 4 });
      const call = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", "mcp-session-id": String(mcp.metadata.episode_id) },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "guess", arguments: { n: 1 } },
        }),
      });
      const reply = (await call.json()) as { result: { isError: boolean; content: { text: string }[] } };
      assert.equal(reply.result.isError, false, JSON.stringify(reply));
      assert.match(reply.result.content[0]?.text ?? "", /higher|correct/);
    } finally {
      await stop(child);
    }
  });

  test("--variant with a Setup: its replayed guess is played on the foreign server before the agent's turn", async () => {
    const foreign = await startOpenEnvServer(started, GUESS_SERVER, ["--defect", "none"]);
    const setup = { id: "setup.replay@1", params: { actions: [{ tool: "guess", args: { n: 500_000 } }] } };
    // the foreign world named without its version
    const variant = { world: "GuessEnvironment", layers: [setup] };
    const { child, url } = await serve(["--remote", foreign, "--variant", JSON.stringify(variant)]);
    try {
      const ws = await WsEpisodeClient.connect(url);
      const first = await ws.reset({ seed: 5 });
      const context = (first.observation as TaskObservation).context as { setup: { args: unknown }[] };
      assert.deepEqual(
        context.setup.map((s) => s.args),
        [{ n: 500_000 }],
      );
      const next = resultOf(await ws.step({ tool: "guess", args: { n: 1 } }));
      assert.ok(next.ok, JSON.stringify(next));
      assert.equal(
        (next.observation as { guesses_left: number }).guesses_left,
        18,
        "the setup's guess counted",
      );
      await ws.close();
    } finally {
      await stop(child);
    }
  });

  test("bad input is a coded error exit: a variant on another world, a server that does not answer", async () => {
    const foreign = await startOpenEnvServer(started, GUESS_SERVER, ["--defect", "none"]);
    const other = await runCli([
      "serve",
      "--remote",
      foreign,
      "--port",
      "0",
      "--variant",
      JSON.stringify({ world: "device-support@1", ...NO_SKIP }),
    ]);
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /\[remote_world_mismatch\]/);
    assert.match(other.stderr, /GuessEnvironment@1\.0\.0/);
    const gone = await runCli(["serve", "--remote", "http://127.0.0.1:9", "--port", "0"]);
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(gone.stderr, /\[remote_unreachable\]/);
  });
});
