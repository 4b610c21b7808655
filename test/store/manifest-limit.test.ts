/**
 * `--trials 1000000000` must not build a billion-trial manifest and die out of memory: a plan past
 * MAX_MANIFEST_TRIALS is refused up front with a config error, before anything is written.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { expandManifest, MAX_MANIFEST_TRIALS, plannedTrialCount } from "../../src/runner/manifest.ts";
import { openStore } from "../../src/store/index.ts";
import { runCli } from "../support/cli.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-manifest-limit-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const registry = defaultGym().registry;
const agents = [
  { id: "cautious", kind: "scripted" },
  { id: "reckless", kind: "scripted" },
] as never;

test("plannedTrialCount is the manifest's length, without building it", () => {
  for (const input of [
    { worlds: ["device-support@1"], difficulties: [1, 2], trials: 3 },
    { worlds: ["device-support@1"], families: ["lost-reply"], difficulties: [1], trials: 2, repeats: 3 },
  ]) {
    const config = parseExperiment({ ...input, agents: ["cautious", "reckless"] });
    const manifest = expandManifest("e", config, agents, registry);
    assert.equal(plannedTrialCount(config, 2, registry), manifest.length);
  }
});

test("a plan past MAX_MANIFEST_TRIALS is refused before any trial is built", () => {
  const config = parseExperiment({
    worlds: ["device-support@1"],
    families: ["lost-reply"],
    difficulties: [1],
    trials: MAX_MANIFEST_TRIALS,
    agents: ["cautious", "reckless"],
  });
  assert.throws(
    () => expandManifest("e", config, agents, registry),
    (err: unknown) =>
      err instanceof ProvingError &&
      err.code === "manifest_too_large" &&
      err.fault === "config" &&
      err.message.includes(String(2 * MAX_MANIFEST_TRIALS)),
  );
});

test("proving run --trials 1000000000 fails at once with manifest_too_large and writes nothing", async () => {
  const store = path.join(dir, "big.db");
  const r = await runCli([
    "run",
    "--world",
    "device-support@1",
    "--agent",
    "cautious",
    "--trials",
    "1000000000",
    "--id",
    "big",
    "--store",
    store,
    "--no-report",
    "--no-progress",
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /plans \d+ trials; one experiment holds at most 1000000 .*\[manifest_too_large\]/);
  if (fs.existsSync(store)) {
    const s = await openStore(store);
    try {
      assert.equal(await s.getExperiment("big"), undefined, "nothing was planned");
    } finally {
      await s.close();
    }
  }
});
