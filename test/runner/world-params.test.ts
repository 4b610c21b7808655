/**
 * Per-world task params (`worldParams`) on the real registry and worlds: an experiment planning
 * device-support@1 and @2 gives `customer: "terse"` to @2 only; every trial spec records its world's
 * effective params; typos and keys for unplanned worlds fail the plan; resume and replay reproduce.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import {
  type ExperimentInput,
  expandManifest,
  parseExperiment,
  replayTrial,
  resumeExperiment,
  runExperiment,
} from "../../src/runner/index.ts";
import { openStore } from "../../src/store/open-store.ts";

const gym = defaultGym();
const AGENT = { id: "cautious", kind: "scripted", spec: "cautious" };

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-world-params-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Families both versions have, so one experiment plans them for @1 and @2. */
const MIXED: ExperimentInput = {
  worlds: ["device-support@1", "device-support@2"],
  families: ["approved-replacement", "lost-reply"],
  difficulties: [1, 2],
  trials: 3,
  agents: ["cautious"],
};

const plan = (input: ExperimentInput): TrialSpec[] =>
  expandManifest("exp-plan", parseExperiment(input), [AGENT], gym.registry);

const persona = (record: TrialRecord): unknown =>
  ((record.task.params as JsonObject).conversation as { customer?: { persona?: unknown } } | undefined)
    ?.customer?.persona;

/** Runs `input` on the default gym, collecting every trial record. */
async function run(input: ExperimentInput): Promise<TrialRecord[]> {
  const records: TrialRecord[] = [];
  await runExperiment(parseExperiment(input), {
    ...gym.runOptions(),
    concurrency: 2,
    onTrial: (r) => records.push(r),
  });
  return records;
}

function rejects(fn: () => unknown, code: string, ...mentions: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ProvingError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(err.fault, "config");
    for (const m of mentions) assert.ok(err.message.includes(m), `"${err.message}" names ${m}`);
    return true;
  });
}

describe("worldParams", () => {
  test("a mixed @1 + @2 experiment runs with customer: terse applied to @2 only", async () => {
    const control = await run(MIXED);
    const v2Control = control.filter((r) => r.spec.world === "device-support@2");
    assert.ok(
      v2Control.some((r) => persona(r) !== "terse"),
      "without the param some seeds draw another persona (else this test shows nothing)",
    );

    const records = await run({ ...MIXED, worldParams: { "device-support@2": { customer: "terse" } } });
    const v1 = records.filter((r) => r.spec.world === "device-support@1");
    const v2 = records.filter((r) => r.spec.world === "device-support@2");
    assert.equal(v1.length, 2 * 2 * 3);
    assert.equal(v2.length, 2 * 2 * 3);
    for (const r of records) assert.notEqual(r.outcome, "infra_error", `${r.spec.id}: ${r.reason}`);
    for (const r of v1) {
      assert.equal(r.spec.params, undefined, "@1 trials carry no params");
      assert.equal((r.task.params as JsonObject).conversation, undefined);
    }
    for (const r of v2) {
      assert.deepEqual(r.spec.params, { customer: "terse" });
      assert.equal(persona(r), "terse");
    }
    // the same cells as the control: only the params of @2 changed
    const cells = (rs: TrialRecord[]) =>
      rs.map((r) => `${r.spec.world}/${r.spec.family}/${r.spec.difficulty}/${r.spec.seed}`).sort();
    assert.deepEqual(cells(records), cells(control));
  });

  test("a bare world id resolves as `worlds` does; the world's value wins over params", () => {
    const specs = plan({
      ...MIXED,
      worlds: ["device-support@1", "device-support"],
      params: { latency: 2, distractors: 1 },
      worldParams: { "device-support": { customer: "impatient", latency: 5 } },
    });
    const latest = gym.world("device-support").id;
    assert.ok(specs.length > 0);
    for (const s of specs) {
      if (s.world === latest)
        assert.deepEqual(s.params, { latency: 5, distractors: 1, customer: "impatient" });
      else assert.deepEqual(s.params, { latency: 2, distractors: 1 });
    }
  });

  test("without worldParams every spec carries params as given (so older manifests expand the same)", () => {
    for (const params of [{}, { latency: 3 }]) {
      const specs = plan({ ...MIXED, params });
      assert.ok(specs.length > 0);
      for (const s of specs) assert.deepEqual(s.params, params);
    }
    for (const s of plan(MIXED)) assert.equal(s.params, undefined);
  });

  test("with variants, worldParams name the variants' base worlds", () => {
    const config = parseExperiment({
      ...MIXED,
      variants: [
        "device-support@1",
        {
          world: "device-support@2",
          layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
        },
      ],
      worldParams: { "device-support@2": { customer: "terse" } },
    });
    const run = gym.runOptions();
    const variants = run.planVariants(config);
    const specs = expandManifest("exp-variants", config, [AGENT], run.registry, variants);
    assert.ok(specs.some((s) => s.variantId !== undefined && s.world === "device-support@2"));
    for (const s of specs) {
      if (s.world === "device-support@2") assert.deepEqual(s.params, { customer: "terse" });
      else assert.equal(s.params, undefined);
    }
    const onlyV1 = parseExperiment({ ...config, variants: ["device-support@1"] });
    rejects(
      () => expandManifest("exp-variants", onlyV1, [AGENT], run.registry, run.planVariants(onlyV1)),
      "bad_experiment",
      "(device-support@1)",
    );
  });

  test("params still go to every world: a key one world does not tune is unknown_param", () => {
    rejects(
      () => plan({ ...MIXED, params: { customer: "terse" } }),
      "unknown_param",
      "device-support@1",
      "customer",
    );
    rejects(
      () => plan({ ...MIXED, params: { custmer: "terse" } }),
      "unknown_param",
      "custmer",
      "params for device-support@1",
    );
    rejects(
      () => plan({ ...MIXED, worldParams: { "device-support@2": { custmer: "terse" } } }),
      "unknown_param",
      "custmer",
      'worldParams["device-support@2"] for device-support@2',
    );
    rejects(
      () => plan({ ...MIXED, worldParams: { "device-support@2": { customer: "grumpy" } } }),
      "unknown_param",
      "grumpy",
    );
  });

  test("a typo fails the run before any trial runs", async () => {
    let ran = 0;
    await assert.rejects(
      runExperiment(parseExperiment({ ...MIXED, params: { custmer: "terse" } }), {
        ...gym.runOptions(),
        onTrial: () => ran++,
      }),
      (err: unknown) => err instanceof ProvingError && err.code === "unknown_param",
    );
    assert.equal(ran, 0);
  });

  test("a key for a world the experiment does not plan, or two keys for one world, is a config error", () => {
    rejects(
      () => plan({ ...MIXED, worldParams: { "order-ops@1": { latency: 1 } } }),
      "bad_experiment",
      'worldParams["order-ops@1"]',
      "not one of the worlds this experiment plans",
      "device-support@1, device-support@2",
    );
    rejects(
      () => plan({ ...MIXED, worldParams: { "no-such-world@1": {} } }),
      "unknown_world",
      'worldParams["no-such-world@1"]',
    );
    rejects(
      () =>
        plan({
          ...MIXED,
          worldParams: {
            "device-support": { customer: "terse" },
            "device-support@2": { customer: "mistaken" },
          },
        }),
      "bad_experiment",
      '"device-support" and "device-support@2" both name device-support@2',
    );
    rejects(
      () => parseExperiment({ ...MIXED, worldParams: { "device-support@2": 3 } }),
      "bad_experiment",
      "worldParams",
    );
  });

  test("an interrupted run resumes from the stored definition; a trial replays from its record", async () => {
    const file = path.join(dir, "resume", "proving.db");
    const input = {
      ...MIXED,
      id: "exp-world-params",
      worldParams: { "device-support@2": { customer: "terse" } },
    };
    const controller = new AbortController();
    let store = await openStore(file);
    let ranFirst = 0;
    let planned: TrialSpec[];
    try {
      const first = await runExperiment(parseExperiment(input), {
        ...gym.runOptions(),
        store,
        concurrency: 1,
        signal: controller.signal,
        onTrial: () => {
          if (++ranFirst === 3) controller.abort();
        },
      });
      assert.equal(first.interrupted, true);
      planned = first.manifest;
      assert.deepEqual(
        (await store.getExperiment("exp-world-params"))?.config.worldParams,
        input.worldParams,
      );
    } finally {
      await store.close();
    }
    store = await openStore(file);
    try {
      const ranNow: TrialRecord[] = [];
      const second = await resumeExperiment("exp-world-params", {
        ...gym.runOptions(),
        store,
        onTrial: (r) => ranNow.push(r),
      });
      assert.equal(second.ranNow, planned.length - ranFirst);
      assert.deepEqual(second.manifest, planned);
      const v2 = ranNow.filter((r) => r.spec.world === "device-support@2");
      assert.ok(v2.length > 0, "the resume ran @2 trials");
      for (const r of v2) assert.equal(persona(r), "terse");

      const record = await store.getTrial(v2[0].spec.id);
      assert.ok(record);
      const replay = await replayTrial(record, { registry: gym.registry });
      assert.equal(replay.reproduced, true, JSON.stringify(replay.divergence));
      assert.ok(replay.steps > 0);
    } finally {
      await store.close();
    }
  });
});
