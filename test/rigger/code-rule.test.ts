/**
 * `rule.generated@1` in the gym: a generated rule is a variant layer by content hash that runs in
 * experiments, keeps the verifier, re-runs from the record, and whose hook failures end only their own
 * trial (`infra_error`, world fault, the failure record in the reason) while the process goes on.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { checkRuleCode, ruleCodeRealizer } from "../../src/rigger/code/index.ts";
import {
  GENERATED_RULE_ID,
  type GeneratedRuleDefinition,
  generatedRule,
  generatedRuleLayer,
  isolateRuleSandbox,
} from "../../src/rules/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { replayTrial } from "../../src/runner/replay.ts";
import { runExperiment } from "../../src/runner/run.ts";

const run = promisify(execFile);

/** Times out the first `times` (config) calls of create_replacement before the world sees them. */
const TIMEOUT_FIRST = `export function filterAction(action: Action, state: RuleState): Action | Blocked {
  if (action.tool !== "create_replacement") return action;
  const times = typeof state.params.times === "number" ? state.params.times : 1;
  const refused = state.history.filter((e) => e.tool === "create_replacement" && e.blocked).length;
  if (refused < times) return blocked("upstream timed out", { code: "timeout", retryable: true });
  return action;
}
`;

const variant = (code: string, config?: Record<string, number>, name = "generated") => ({
  world: "device-support@1",
  name,
  layers: [generatedRuleLayer(code, config)],
});

async function runVariants(variants: unknown[], agents = ["cautious"]): Promise<TrialRecord[]> {
  const gym = defaultGym();
  const config = parseExperiment({
    id: "generated-rule-test",
    worlds: ["device-support@1"],
    families: ["approved-replacement"],
    difficulties: [1],
    trials: 2,
    agents,
    variants: variants as never,
  });
  const records: TrialRecord[] = [];
  await runExperiment(config, { ...gym.runOptions(), concurrency: 2, onTrial: (r) => records.push(r) });
  return records;
}

describe("rule.generated@1", () => {
  test("is a built-in rule kind; its params are the code and its sha256 (checked), and config", () => {
    const gym = defaultGym();
    assert.ok(gym.harness.ruleIds().includes(GENERATED_RULE_ID));
    const spec = variant(TIMEOUT_FIRST, { times: 1 });
    assert.deepEqual(gym.harness.normalize(spec).layers[0].params, spec.layers[0].params);
    const wrongHash = {
      world: "device-support@1",
      layers: [{ id: GENERATED_RULE_ID, params: { code: TIMEOUT_FIRST, sha256: "a".repeat(64) } }],
    };
    assert.throws(
      () => gym.harness.planVariants({ variants: [wrongHash] }),
      (e: Error & { code?: string }) => e.code === "bad_layer_params" && /hash_mismatch/.test(e.message),
    );
    const broken = variant("export function filterAction(a) { return a +; }");
    assert.throws(
      () => gym.harness.normalize(broken),
      (e: Error & { code?: string }) => e.code === "bad_layer_params" && /compile_error/.test(e.message),
    );
    const badDirectives = variant(
      "export const directives = { latency: { seconds: -1 } };\nexport function filterAction(a: any) { return a; }",
    );
    assert.throws(
      () => gym.harness.normalize(badDirectives),
      (e: Error & { code?: string }) =>
        e.code === "bad_layer_params" && /directives\.latency/.test(e.message),
    );
    // another code or config is another variant
    assert.notEqual(gym.harness.variantId(spec), gym.harness.variantId(variant(TIMEOUT_FIRST, { times: 2 })));
  });

  test("runs in an experiment: the rule acts, the known-good policy still passes, the verifier is unchanged, the trial re-runs from its record", async () => {
    const records = await runVariants(["device-support@1", variant(TIMEOUT_FIRST, { times: 1 })]);
    const gym = defaultGym();
    const generatedId = gym.harness.variantId(variant(TIMEOUT_FIRST, { times: 1 }));
    const generated = records.filter((r) => r.spec.variantId === generatedId);
    const base = records.filter((r) => r.spec.variantId !== generatedId);
    assert.equal(generated.length, 2);
    for (const r of generated) {
      assert.equal(r.outcome, "passed", r.reason);
      assert.equal(r.verdict?.verifier, base[0].verdict?.verifier);
      const refused = r.steps.filter(
        (s) =>
          s.action.tool === "create_replacement" &&
          s.observation.kind === "tool_result" &&
          !s.observation.result.ok &&
          s.observation.result.error.message === "upstream timed out",
      );
      assert.equal(refused.length, 1, "the generated rule refused the first create_replacement");
      assert.ok(r.steps.length > base[0].steps.length, "the cautious policy retried");
      const replay = await replayTrial(r, { registry: gym.registry, environment: gym.harness.environment });
      assert.equal(replay.reproduced, true, JSON.stringify(replay.divergence));
    }
  });

  test("a hook failure at run time ends that trial infra_error (world fault) with the failure record; other trials and the process go on", async () => {
    const spinning = variant("export function filterAction(a: any) { for (;;) {} }", undefined, "spins");
    const throwing = variant(
      "export function modifyTransition(a: any, r: any) {\n  return r.observation.result.missing.field;\n}",
      undefined,
      "throws",
    );
    const escaping = variant(
      "export function filterObservation(o: any) { return (globalThis as any).process.env; }",
      undefined,
      "escapes",
    );
    const good = variant(TIMEOUT_FIRST, { times: 1 }, "good");
    const records = await runVariants([spinning, throwing, escaping, good]);
    const gym = defaultGym();
    const byVariant = (v: unknown) => records.filter((r) => r.spec.variantId === gym.harness.variantId(v));
    for (const [v, kind] of [
      [spinning, "timeout"],
      [throwing, "throw"],
      [escaping, "escape"],
    ] as const) {
      const rs = byVariant(v);
      assert.equal(rs.length, 2);
      for (const r of rs) {
        assert.equal(r.outcome, "infra_error", `${v.name}: ${r.reason}`);
        assert.equal(r.fault, "world");
        assert.match(r.reason, new RegExp(`rule\\.generated@1 [0-9a-f]{12} \\[\\w+\\] ${kind}`));
      }
    }
    assert.match(byVariant(throwing)[0].reason, /line 2/);
    for (const r of byVariant(good)) assert.equal(r.outcome, "passed", r.reason);
  });

  test("`proving run --variant` accepts a generated-rule variant as it is", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-generated-"));
    try {
      const file = path.join(dir, "variant.json");
      fs.writeFileSync(file, JSON.stringify(variant(TIMEOUT_FIRST, { times: 1 })));
      const { stdout } = await run(
        process.execPath,
        [
          "--no-node-snapshot",
          "--import",
          "tsx",
          "src/cli/main.ts",
          "run",
          "--agent",
          "cautious",
          "--variant",
          file,
          "--family",
          "approved-replacement",
          "--difficulty",
          "1",
          "--trials",
          "1",
          "--store",
          path.join(dir, "store.db"),
          "--json",
        ],
        { cwd: path.resolve(import.meta.dirname, "../.."), env: { ...process.env, CI: "" } },
      );
      const out = JSON.parse(stdout) as { outcomes: { passed: number }; trials: { variant: string }[] };
      assert.equal(out.outcomes.passed, 1);
      assert.equal(
        out.trials[0].variant,
        defaultGym().harness.variantId(variant(TIMEOUT_FIRST, { times: 1 })),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("checking code before rollouts", () => {
  const def: GeneratedRuleDefinition = generatedRule(isolateRuleSandbox({ timeoutMs: 500 }));
  const sample = {
    action: { tool: "get_case", args: { case_id: "c-1" }, callId: "call-0" },
    result: {
      observation: {
        kind: "tool_result" as const,
        tool: "get_case",
        callId: "call-0",
        result: { ok: true as const, status: "open" },
        now: 0,
      },
      reward: 0,
      terminated: false,
      truncated: false,
      info: { now: 0 },
    },
    state: { world: {}, now: 0, step: 0, params: {}, history: [] },
  };

  test("checkRuleCode: the layer for good code; failure records for code that fails on a sample", () => {
    const ok = checkRuleCode(def, TIMEOUT_FIRST, { samples: [sample] });
    assert.equal(ok.ok, true);
    if (ok.ok) {
      assert.equal(ok.layer.id, GENERATED_RULE_ID);
      assert.equal(ok.layer.params.sha256, ok.sha256);
      assert.deepEqual(ok.hooks, ["filterAction"]);
    }
    const bad = checkRuleCode(def, "export function filterAction(a: any) { return { tool: 3 }; }", {
      samples: [sample],
    });
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.failures[0].kind, "bad_return");
      assert.match(bad.failures[0].message, /filterAction must return an action/);
    }
  });

  test("ruleCodeRealizer: a code proposal becomes its layer, or CodeFailures in the rigger's shape", async () => {
    const realize = ruleCodeRealizer(def, { samples: [sample] });
    const ok = await realize({ kind: "code", source: TIMEOUT_FIRST, rationale: "r" });
    assert.equal(ok.ok, true);
    if (ok.ok) assert.deepEqual(ok.layer, generatedRuleLayer(TIMEOUT_FIRST));
    const failed = await realize({
      kind: "code",
      source: "export function filterAction(a) {",
      rationale: "r",
    });
    assert.equal(failed.ok, false);
    if (!failed.ok) {
      assert.equal(failed.failures[0].stage, "compile");
      assert.match(failed.failures[0].message, /compile_error at line 1/);
      assert.match(failed.failures[0].codeHash ?? "", /^[0-9a-f]{64}$/);
    }
    const mutating = await realize({
      kind: "code",
      source: "export function filterAction(a: any) { a.args.x = 1; return a; }",
      rationale: "r",
    });
    assert.equal(!mutating.ok && mutating.failures[0].stage, "mutation");
    if (!mutating.ok) assert.equal(mutating.failures[0].hook, "filterAction");
  });
});
