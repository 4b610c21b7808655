/**
 * The composition root: a gym is instances (no module-global state), describes itself as plain JSON,
 * and `loadGym` rebuilds exactly the same gym from that JSON — here in another process, with a plugin
 * module's custom world and rule.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ProvingError } from "../../src/core/errors.ts";
import { createGym, defaultGym, loadGym } from "../../src/gym/index.ts";
import { FAULT_RULES } from "../../src/harness/index.ts";
import { runTrial } from "../../src/runner/index.ts";
import { runCli } from "../support/cli.ts";
import { toyWorld } from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = pathToFileURL(path.join(ROOT, "src/index.ts")).href;
const code = (e: unknown) => (e as ProvingError).code;

/** A plugin module: a custom world (on `defineToolWorld`) and a custom rule, importing the library. */
const PLUGIN = `
import { blocked, defineRule, defineTool, defineToolWorld, scriptPolicy, z } from ${JSON.stringify(SRC)};
const bump = defineTool({ name: "bump", description: "count one", input: z.object({}),
  run: (_a, ctx) => ({ ok: true, n: ++ctx.state.entities.n }) });
const stop = defineTool({ name: "stop", description: "end", input: z.object({}), run: () => ({ ok: true }) });
const world = defineToolWorld({
  id: "plugin-counter@1", description: "count to a target", tools: [bump, stop], terminal: ["stop"],
  families: [{ name: "count", description: "count", difficulties: [1, 2] }],
  task: ({ difficulty, seed }) => ({ params: { target: difficulty + (seed % 2) }, instruction: "count" }),
  start: (p) => ({ n: 0, target: p.target }),
  context: (e) => ({ target: e.target }),
  verify: (e) => ({ checks: [{ name: "counted", passed: e.n === e.target, detail: String(e.n) }] }),
  policies: { counter: scriptPolicy("counter", function* (t) {
    for (let i = 0; i < t.context.target; i++) yield { tool: "bump", args: {} };
    yield { tool: "stop", args: {} };
  }) },
  knownGood: "counter",
});
const noStop = defineRule({ id: "rule.no-stop@1", description: "stop is refused", params: z.object({}),
  create: (p) => ({ id: "rule.no-stop@1", params: p, filterAction: (a) => (a.tool === "stop" ? blocked("no") : a) }) });
export default { worlds: [world], rules: [noStop] };
`;

describe("a gym is instances", () => {
  test("the built-in gym describes its parts; two gyms share nothing", () => {
    const one = defaultGym();
    const d = one.describe();
    assert.deepEqual(d.worlds, [
      "device-support@1",
      "device-support@2",
      "order-ops@1",
      "support-orders@1",
      "code-repair@1",
    ]);
    assert.ok(d.rules.includes("rule.lose-reply-after-commit@1") && d.rules.includes("rule.rate-limit@1"));
    assert.deepEqual(d.handoffs, ["handoff.replacement-order@1"]);
    assert.deepEqual(d.agentKinds, [
      "openai",
      "anthropic",
      "openai-compatible",
      "cmd",
      "cmd-jsonl",
      "learner",
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(d)), d, "a description is plain JSON");
    const other = defaultGym({ worlds: [toyWorld()] });
    assert.ok(other.registry.hasWorld("toy@1"));
    assert.ok(!one.registry.hasWorld("toy@1"), "what one gym holds, another does not");
    assert.ok(!defaultGym().registry.hasWorld("toy@1"));
  });

  test("createGym takes exactly its parts; an id given twice is a config error", () => {
    const bare = createGym({ worlds: [toyWorld()] });
    assert.deepEqual(bare.describe().worlds, ["toy@1"]);
    assert.deepEqual(bare.describe().rules, []);
    assert.throws(
      () => createGym({ worlds: [toyWorld(), toyWorld()] }),
      (e) => code(e) === "duplicate_world",
    );
    assert.throws(
      () => defaultGym({ rules: [FAULT_RULES[0]] }),
      (e) => code(e) === "duplicate_rule",
    );
  });

  test("agent kinds are the gym's: a known prefix wins over the module-path form", async () => {
    const gym = defaultGym();
    const ctx = { cwd: ROOT, worlds: [gym.world("device-support@1")] };
    const cmd = await gym.resolveAgent("cmd:node agent.mjs", ctx);
    assert.equal(cmd.ref.kind, "cmd", "cmd:node agent.mjs is a command, not a module path");
    const scripted = await gym.resolveAgent("cautious", ctx);
    assert.equal(scripted.ref.kind, "scripted");
    await assert.rejects(gym.resolveAgent("nope:x", ctx), /unknown agent kind "nope:"/);
    const noKinds = createGym({ worlds: [gym.world("device-support@1")] });
    await assert.rejects(noKinds.resolveAgent("openai:gpt-4o", ctx), (e) => code(e) === "unknown_agent");
    await assert.rejects(
      defaultGym({ env: {} }).resolveAgent("openai:gpt-4o", ctx),
      (e) => code(e) === "missing_api_key",
      "the gym's env, not the process's, is where an agent kind reads its key",
    );
    const keyed = await defaultGym({ env: { OPENAI_API_KEY: "sk-test" } }).resolveAgent("openai:gpt-4o", ctx);
    assert.equal(keyed.ref.kind, "llm");
    assert.ok(!JSON.stringify(keyed.ref).includes("sk-test"), "the recorded ref holds no key");
  });
});

describe("a gym rebuilt from its description", () => {
  let dir: string;
  let plugin: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-gym-"));
    plugin = path.join(dir, "plugin.mjs");
    fs.writeFileSync(plugin, PLUGIN);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("loadGym(describe()) is the same gym; unknown parts and bad plugins are config errors", async () => {
    const gym = await loadGym({
      schemaVersion: 1,
      plugins: [plugin],
      worlds: ["plugin-counter@1"],
      rules: ["rule.no-stop@1"],
    });
    const d = gym.describe();
    assert.deepEqual(d.worlds, ["plugin-counter@1"]);
    assert.deepEqual(d.rules, ["rule.no-stop@1"]);
    assert.deepEqual((await loadGym(d)).describe(), d);
    await assert.rejects(loadGym({ ...d, worlds: ["nowhere@1"] }), (e) => code(e) === "unknown_gym_part");
    await assert.rejects(
      loadGym({ ...d, plugins: [path.join(dir, "missing.mjs")] }),
      (e) => code(e) === "bad_gym_plugin",
    );
    fs.writeFileSync(path.join(dir, "bad.mjs"), "export default 42;\n");
    await assert.rejects(
      loadGym({ ...d, plugins: [path.join(dir, "bad.mjs")] }),
      (e) => code(e) === "bad_gym_plugin",
    );
    await assert.rejects(loadGym({ ...d, schemaVersion: 2 }), (e) => code(e) === "bad_gym");
    await assert.rejects(loadGym({ ...d, extra: true }), (e) => code(e) === "bad_gym");
  });

  test("another process rebuilds the gym from JSON and runs the same trial to the same trajectory", async () => {
    const local = await loadGym({
      schemaVersion: 1,
      plugins: [plugin],
      worlds: ["device-support@1", "plugin-counter@1"],
      rules: ["rule.no-stop@1", "rule.rate-limit@1"],
    });
    const description = JSON.stringify(local.describe());
    const spec = trialSpec({ world: "plugin-counter@1", family: "count", difficulty: 2, seed: 1 });
    const variant = { world: "plugin-counter@1", layers: [{ id: "rule.no-stop@1", params: {} }] };
    const child = path.join(dir, "child.mts");
    fs.writeFileSync(
      child,
      `import { loadGym, runTrial } from ${JSON.stringify(SRC)};
const [description, spec, variant] = JSON.parse(process.argv[2]);
const gym = await loadGym(description, { env: {} });
const world = gym.world(spec.world);
const agent = world.policies[world.knownGood];
const bare = await runTrial(spec, { world, agent });
const harnessed = await runTrial({ ...spec, variant, variantId: gym.harness.variantId(variant) },
  { world, agent, environment: gym.harness.environment });
console.log(JSON.stringify({ description: gym.describe(), bare: [bare.outcome, bare.trajectoryHash],
  harnessed: [harnessed.outcome, harnessed.trajectoryHash] }));
`,
    );
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", "tsx", child, JSON.stringify([JSON.parse(description), spec, variant])],
        { cwd: ROOT, env, timeout: 120_000 },
        (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
      ),
    );
    const remote = JSON.parse(stdout);
    assert.deepEqual(remote.description, JSON.parse(description), "the same gym, part for part");
    const world = local.world("plugin-counter@1");
    const agent = world.policies[world.knownGood];
    const bare = await runTrial(spec, { world, agent });
    const harnessed = await runTrial(
      { ...spec, variant, variantId: local.harness.variantId(variant) },
      { world, agent, environment: local.harness.environment },
    );
    assert.equal(bare.outcome, "passed");
    assert.notEqual(harnessed.outcome, "passed", "the plugin's rule refuses stop");
    assert.deepEqual(remote.bare, [bare.outcome, bare.trajectoryHash]);
    assert.deepEqual(remote.harnessed, [harnessed.outcome, harnessed.trajectoryHash]);
  });

  test("the CLI takes the gym with --gym: a plugin's world is listed and played", async () => {
    const file = path.join(dir, "gym.json");
    fs.writeFileSync(
      file,
      JSON.stringify({ schemaVersion: 1, plugins: [plugin], worlds: ["plugin-counter@1"], rules: [] }),
    );
    const worlds = await runCli(["worlds", "--json", "--gym", file]);
    assert.equal(worlds.code, 0, worlds.stderr);
    assert.match(worlds.stdout, /plugin-counter@1/);
    assert.doesNotMatch(worlds.stdout, /device-support@1/, "the gym of the file, not the built-ins");
    const store = path.join(dir, "store.db");
    const run = await runCli([
      "run",
      "--gym",
      file,
      "--world",
      "plugin-counter@1",
      "--trials",
      "2",
      "--difficulty",
      "1",
      "--store",
      store,
      "--no-report",
      "--no-progress",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { planned: number; outcomes: Record<string, number> };
    assert.equal(result.planned, 2);
    assert.equal(result.outcomes.passed, 2, "the plugin's known-good policy passes both trials");
    const bad = await runCli(["worlds", "--gym", path.join(dir, "nope.json")]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /proving: error: cannot read/);
  });
});
