/**
 * An experiment started from flags (no experiment file) is stored with a description of what the
 * flags ran (worlds, families, difficulties, agents, seeds), not the demo's; with no flags that
 * shape it, `proving run` runs the demo and says so.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { experimentFromFlags } from "../../src/cli/commands/run-action.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { DEMO_EXPERIMENT } from "../../src/runner/experiment.ts";
import { openStore } from "../../src/store/open-store.ts";
import { parseJson, runCli } from "../support/cli.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-run-description-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function storedDescription(file: string, id: string): Promise<unknown> {
  const store = await openStore(file);
  try {
    const experiment = await store.getExperiment(id);
    assert.ok(experiment, `experiment ${id} is stored`);
    return experiment.config.description;
  } finally {
    await store.close();
  }
}

test("`proving run` from flags stores a description of the flags, not the demo's", async () => {
  const file = path.join(dir, "flags.db");
  const r = await runCli([
    "run",
    "--world",
    "device-support@1",
    "--family",
    "denied",
    "--difficulty",
    "2",
    "--agent",
    "cautious",
    "--trials",
    "2",
    "--seed",
    "7",
    "--json",
    "--no-progress",
    "--no-report",
    "--store",
    file,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJson<{ experiment: { id: string; description?: string } }>(r);
  const stored = await storedDescription(file, doc.experiment.id);
  assert.notEqual(stored, DEMO_EXPERIMENT.description);
  assert.equal(
    stored,
    "device-support@1 · families denied · difficulty 2 · agents cautious · 2 seeds from 7",
  );
  assert.equal(doc.experiment.description, stored, "run --json shows the stored description");
});

test("flags: each one that shapes the run is described; budget-only flags keep the demo", () => {
  const gym = defaultGym();
  const base = { progress: false, report: false } as Parameters<typeof experimentFromFlags>[1];
  assert.equal(experimentFromFlags(undefined, base, gym).description, DEMO_EXPERIMENT.description);
  assert.equal(
    experimentFromFlags(undefined, { ...base, maxSteps: 5 } as typeof base, gym).description,
    DEMO_EXPERIMENT.description,
  );
  assert.equal(
    experimentFromFlags(undefined, { ...base, agent: ["cautious", "skip-approval"], repeats: 3 }, gym)
      .description,
    "device-support@1 · all families · difficulties 1, 2, 3 · agents cautious, skip-approval · 2 seeds from 0 · 3 repeats",
  );
  assert.equal(
    experimentFromFlags(undefined, { ...base, trials: 1 }, gym).description,
    "device-support@1 · all families · difficulties 1, 2, 3 · all scripted agents · 1 seed from 0",
  );
});

test("an experiment file keeps its own description (or none), whatever the flags", () => {
  const gym = defaultGym();
  const withDescription = path.join(dir, "with.json");
  fs.writeFileSync(withDescription, JSON.stringify({ description: "mine", agents: ["cautious"] }));
  const without = path.join(dir, "without.json");
  fs.writeFileSync(without, JSON.stringify({ agents: ["cautious"] }));
  const flags = { trials: 1 } as Parameters<typeof experimentFromFlags>[1];
  assert.equal(experimentFromFlags(withDescription, flags, gym).description, "mine");
  assert.equal(experimentFromFlags(without, flags, gym).description, undefined);
});
