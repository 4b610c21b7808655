/** Split files, the regression manifest hash, and `proving run --split NAME`. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import {
  buildTaskSpace,
  parseSplitFile,
  regressionManifest,
  splitTasks,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseJson, runCli } from "../support/cli.ts";

const YAML = `name: splits-test
regression:
  version: 1
  tasks:
    - { world: device-support@1, family: lost-reply, difficulty: 2, seeds: [1, 2] }
    - { world: device-support@1, family: denied, difficulty: 1, seed: 3 }
dynamic:
  worlds: [device-support@1]
  difficulties: [1, 2]
heldout:
  families: [unverifiable]
`;
const gym = defaultGym();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-splits-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the regression manifest hash is stable, and changes with a seed, a version or a task", () => {
  const a = regressionManifest(parseSplitFile(YAML), gym);
  const b = regressionManifest(parseSplitFile(YAML), gym);
  assert.equal(a.hash, b.hash);
  assert.deepEqual(
    a.tasks.map((t) => `${t.key.family}/d${t.key.difficulty}#${t.seed}`),
    ["lost-reply/d2#1", "lost-reply/d2#2", "denied/d1#3"],
  );
  assert.ok(a.tasks.every((t) => t.contentHash.length > 0 && t.template.includes("@")));
  for (const changed of [
    YAML.replace("seeds: [1, 2]", "seeds: [1, 4]"),
    YAML.replace("version: 1", "version: 2"),
    YAML.replace("seed: 3", "seed: 5"),
  ]) {
    assert.notEqual(regressionManifest(parseSplitFile(changed), gym).hash, a.hash);
  }
});

test("held-out families never enter the dynamic space; bad split files are config errors", () => {
  const split = parseSplitFile(YAML);
  const space = buildTaskSpace(split, gym);
  assert.ok(space.dynamic.every((e) => e.key.family !== "unverifiable" && e.key.difficulty <= 2));
  assert.ok(space.heldout.length > 0 && space.heldout.every((e) => e.key.family === "unverifiable"));
  assert.equal(space.dynamic.length, 7 * 2);
  assert.ok(space.dynamic[0].tags.includes("type:approved-replacement"));
  assert.equal(splitTasks(split, "dynamic", gym, [1, 2]).tasks.length, 28);
  assert.throws(
    () => parseSplitFile("name: x\nregression: {version: 1, tasks: []}\ndynamic: {worlds: [a]}"),
    { code: "bad_split_file" },
  );
  assert.throws(() => parseSplitFile(YAML.replace("seeds: [1, 2]", "seeds: [1, 2]\n      seed: 3")), {
    code: "bad_split_file",
  });
  assert.throws(
    () => parseSplitFile(`${YAML.replace("  difficulties: [1, 2]\n", "  families: [unverifiable]\n")}`),
    { code: "bad_split_file" },
  );
});

test("proving run --split regression runs exactly the frozen tasks and prints the manifest hash", async () => {
  const file = path.join(dir, "splits.yaml");
  fs.writeFileSync(file, YAML);
  const store = path.join(dir, "store.db");
  const r = await runCli([
    "run",
    "--split",
    "regression",
    "--splits",
    file,
    "--agent",
    "cautious",
    "--store",
    store,
    "--no-report",
    "--json",
    "--id",
    "reg-1",
  ]);
  const doc = parseJson<{
    experiment: { id: string; manifest_hash: string };
    planned: number;
    trials: { family: string; seed: number; passed: boolean }[];
  }>(r);
  assert.equal(doc.experiment.id, "reg-1");
  assert.equal(doc.experiment.manifest_hash, regressionManifest(parseSplitFile(YAML), gym).hash);
  assert.equal(doc.planned, 3);
  assert.deepEqual(
    doc.trials.map((t) => `${t.family}#${t.seed}`),
    ["lost-reply#1", "lost-reply#2", "denied#3"],
  );
  assert.ok(doc.trials.every((t) => t.passed));
  const bad = await runCli([
    "run",
    "--split",
    "training",
    "--splits",
    file,
    "--agent",
    "cautious",
    "--store",
    store,
  ]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown_split/);
});
