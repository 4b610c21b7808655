/**
 * Module agents run out of the runner's reach (issue 17): each way a module could end the run —
 * `process.exit`, an uncaught exception, an unhandled rejection, a memory hog, args no store can keep
 * (a cycle, a BigInt, a throwing getter, `toJSON`, a Proxy), a first act() that never yields — ends
 * only its own trials, as `agent_error` or `timeout`, and every planned trial is recorded. An agent
 * that edits what it is given (the tools, observations, its own earlier actions) changes neither what
 * other trials see nor what is recorded. What an agent is told names no task, family, seed or trial.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { loadModuleAgent } from "../../src/agents/resolve.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "hostile");
const gym = defaultGym();

async function run(
  modules: string[],
  opts: {
    trials?: number;
    timeoutMs?: number;
    families?: string[];
    inProcess?: boolean;
    maxHeapMb?: number;
    concurrency?: number;
  } = {},
) {
  const agents = await Promise.all(
    modules.map((m) =>
      loadModuleAgent(path.join(FIXTURES, m), FIXTURES, {
        inProcess: opts.inProcess ?? false,
        ...(opts.maxHeapMb ? { maxHeapMb: opts.maxHeapMb } : {}),
      }),
    ),
  );
  const config = parseExperiment({
    worlds: ["device-support@1"],
    families: opts.families ?? ["approved-replacement"],
    difficulties: [1],
    trials: opts.trials ?? 2,
    agents: agents.map((a) => a.ref.spec),
    budget: { maxSteps: 20, wallTimeoutMs: opts.timeoutMs ?? 10_000 },
  });
  const records: TrialRecord[] = [];
  const result = await runExperiment(config, {
    ...gym.runOptions(),
    agents,
    concurrency: opts.concurrency ?? 2,
    onTrial: (rec) => records.push(rec),
  });
  records.sort((a, b) => a.spec.index - b.spec.index);
  return { ...result, records };
}

describe("module agents cannot end the run", () => {
  const cases: Array<[string, RegExp, string]> = [
    ["exits.mjs", /exited \(code 0\)/, "agent_error"],
    ["uncaught.mjs", /boom from a timer/, "agent_error"],
    ["unhandled.mjs", /nobody handles me/, "agent_error"],
    ["memory-hog.mjs", /out of memory/, "agent_error"],
    ["spins.mjs", /timeout/, "timeout"],
  ];
  for (const [file, reason, outcome] of cases) {
    test(`${file}: its trials are ${outcome}, the well-behaved agent's pass as usual`, async () => {
      const r = await run([file, "good.mjs"], {
        timeoutMs: file === "spins.mjs" ? 1500 : 60_000,
        maxHeapMb: 64,
      });
      assert.equal(r.trials.length, 4);
      const bad = r.trials.filter((t) => t.agent !== "good-module");
      const good = r.trials.filter((t) => t.agent === "good-module");
      assert.deepEqual(
        bad.map((t) => t.outcome),
        [outcome, outcome],
      );
      for (const t of bad) assert.match(t.reason ?? "", reason);
      assert.equal(good.length, 2);
      for (const t of good) assert.notEqual(t.outcome, "missing");
      for (const t of good) assert.notEqual(t.outcome, "agent_error", t.reason);
    });
  }

  const argKinds: Array<[string, RegExp]> = [
    ["cycle", /circular|a cycle/i],
    ["bigint", /bigint/i],
    ["getter", /getter/],
    ["tojson", /toJSON/],
    ["proxy", /proxy trap/],
    // what JSON would silently change, and what is too large to keep
    ["nan", /NaN, not a JSON number/],
    ["date", /Date object/],
    ["map", /Map object/],
    ["huge", /larger than 1048576 characters/],
  ];
  for (const inProcess of [false, true]) {
    test(`${inProcess ? "in process" : "isolated"}: args no store can keep (cycle, BigInt, getter, toJSON, Proxy, NaN, Date, Map, 20 MB) → agent_error, nothing half-recorded`, async () => {
      const r = await run(
        argKinds.map(([kind]) => `args/${kind}.mjs`),
        { trials: 1, inProcess },
      );
      assert.equal(r.trials.length, argKinds.length);
      assert.equal(r.records.length, argKinds.length, "every trial is recorded");
      for (const [kind, why] of argKinds) {
        const t = r.trials.find((x) => x.agent === `bad-args-${kind}`);
        assert.ok(t, kind);
        assert.equal(t.outcome, "agent_error", t.reason);
        assert.match(t.reason ?? "", /not plain JSON/);
        assert.match(t.reason ?? "", why);
      }
      for (const rec of r.records) {
        assert.equal(rec.steps.length, 0, "no step of an unstorable action is recorded");
        assert.doesNotThrow(() => JSON.stringify(rec));
      }
    });
  }
});

describe("what an agent is given is its own copy", () => {
  for (const inProcess of [false, true]) {
    test(`${inProcess ? "in process" : "isolated"}: emptying the tools and editing observations and earlier args changes nothing others see or the record keeps`, async () => {
      // one at a time: an isolated agent plays all its sessions in one process, so concurrent
      // sessions could edit each other's action before it is returned (the agent's own business)
      const r = await run(["mutates.mjs", "tells.mjs"], { trials: 2, inProcess, concurrency: 1 });
      const tells = r.trials.filter((t) => t.agent === "tells");
      assert.equal(tells.length, 2);
      const { records } = await recordsOf(r);
      for (const rec of records.filter((x) => x.spec.agent.id === "tells")) {
        const said = JSON.parse(String(rec.steps[0]?.action.args.reason));
        assert.ok(said.episode.tools > 0, "the later agent still sees the tools");
        assert.ok(Array.isArray((rec.initial as { tools: unknown[] }).tools));
        assert.ok(
          (rec.initial as { tools: unknown[] }).tools.length > 0,
          "the recorded first observation keeps its tools",
        );
      }
      for (const rec of records.filter((x) => x.spec.agent.id === "mutates")) {
        for (const s of rec.steps) {
          assert.notEqual(s.action.args.case_id, "FORGED", "an earlier action cannot be rewritten");
          assert.equal((s.observation as { result?: { forged?: unknown } }).result?.forged, undefined);
        }
      }
    });
  }

  test("isolated: module state carries across the episodes of one run (an agent can learn), never into another run (issue 27)", async () => {
    const episodesSeen = async () => {
      const r = await run(["remembers.mjs"], { trials: 4, concurrency: 1 });
      assert.equal(r.records.length, 4);
      return r.records.map((rec) => JSON.parse(String(rec.steps[0]?.action.args.reason)).module);
    };
    assert.deepEqual(await episodesSeen(), [0, 1, 2, 3], "one process plays the run's episodes in order");
    assert.deepEqual(await episodesSeen(), [0, 1, 2, 3], "a new run starts a new process");
    assert.equal(
      (globalThis as { __provingSeen?: unknown }).__provingSeen,
      undefined,
      "nothing reached the runner",
    );
  });

  test("in process (trusted code only): module state and globals are the runner's", async () => {
    const r = await run(["remembers.mjs"], { trials: 4, inProcess: true });
    delete (globalThis as { __provingSeen?: unknown }).__provingSeen;
    const found = r.records.map((rec) => JSON.parse(String(rec.steps[0]?.action.args.reason)));
    assert.ok(
      found.some((f) => f.module > 0 && f.global > 0),
      JSON.stringify(found),
    );
  });

  test("the episode an agent is told: an opaque id, the world, instruction, tools and a sampling seed — no task id, family or seed", async () => {
    const { records } = await recordsOf(
      await run(["tells.mjs"], { trials: 2, families: ["needs-approval"] }),
    );
    const told = records.map((rec) => JSON.parse(String(rec.steps[0]?.action.args.reason)));
    for (const [i, said] of told.entries()) {
      assert.deepEqual(said.keys, ["episodeId", "instruction", "samplingSeed", "tools", "world"]);
      const text = JSON.stringify(said);
      const rec = records[i]!;
      assert.ok(!text.includes(rec.task.id), "no task id");
      assert.ok(!text.includes(rec.spec.id), "no trial id");
      assert.ok(!text.includes("needs-approval"), "no family");
      assert.notEqual(said.episode.samplingSeed, rec.spec.seed);
      assert.match(said.episode.episodeId, /^ep-[0-9a-f]{16}$/);
    }
    assert.notEqual(told[0].episode.episodeId, told[1].episode.episodeId);
  });

  test("regeneration from what the agent is told fails: no family and difficulty with the sampling seed gives its task's hidden params", async () => {
    const { records } = await recordsOf(
      await run(["tells.mjs"], { trials: 3, families: ["needs-approval"] }),
    );
    const world = gym.runOptions().registry.world("device-support@1");
    for (const rec of records) {
      const said = JSON.parse(String(rec.steps[0]?.action.args.reason));
      // what `proving tasks --family F --difficulty D --seed S --params` does, with every F and D
      const hidden = JSON.stringify(rec.task.params);
      const real = world.generateTask({
        family: rec.spec.family,
        difficulty: rec.spec.difficulty,
        seed: rec.spec.seed,
      });
      assert.equal(JSON.stringify(real.params), hidden, "the task's own seed does regenerate it");
      for (const seed of [
        said.episode.samplingSeed,
        Number.parseInt(said.episode.episodeId.slice(3, 11), 16),
      ]) {
        for (const f of world.families) {
          for (const difficulty of f.difficulties) {
            const guess = world.generateTask({ family: f.name, difficulty, seed });
            assert.notEqual(JSON.stringify(guess.params), hidden, `${f.name}/d${difficulty}/s${seed}`);
          }
        }
      }
    }
  });
});

async function recordsOf(result: Awaited<ReturnType<typeof run>>) {
  return { records: result.records };
}

describe("the CLI with a module agent that calls process.exit(0)", () => {
  test("records every planned trial (agent_error), prints the report and exits 0 only because all were recorded", async () => {
    const { runCli, parseJson } = await import("../support/cli.ts");
    const os = await import("node:os");
    const fs = await import("node:fs");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-exit-agent-"));
    try {
      const r = await runCli([
        "run",
        "--agent",
        path.join(FIXTURES, "exits.mjs"),
        "--agent",
        "cautious",
        "--family",
        "approved-replacement",
        "--difficulty",
        "1",
        "--trials",
        "2",
        "--json",
        "--no-progress",
        "--no-report",
        "--store",
        path.join(dir, "s.db"),
      ]);
      assert.equal(r.code, 0, r.stderr);
      const doc = parseJson<{ planned: number; trials: Array<{ agent: string; outcome: string }> }>(r);
      assert.equal(doc.planned, 4);
      assert.equal(doc.trials.filter((t) => t.outcome === "missing").length, 0);
      assert.deepEqual(
        doc.trials.filter((t) => t.agent === "exits").map((t) => t.outcome),
        ["agent_error", "agent_error"],
      );
      assert.deepEqual(
        doc.trials.filter((t) => t.agent === "cautious").map((t) => t.outcome),
        ["passed", "passed"],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
