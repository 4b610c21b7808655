/** `proving run --variant <file-or-json>`: how the flag becomes the experiment's variants. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { experimentFromFlags } from "../../src/cli/commands/run-action.ts";
import { defaultGym } from "../../src/gym/index.ts";

test("--variant takes world ids, inline JSON and files (a variant, a list or {variants}); worlds follow", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-variant-"));
  try {
    const file = path.join(dir, "v.yaml");
    fs.writeFileSync(
      file,
      "variants:\n  - world: order-ops@1\n    layers: [{ id: rule.rate-limit@1, params: { limit: 1, window: 60 } }]\n",
    );
    const config = experimentFromFlags(
      undefined,
      {
        variant: [
          "order-ops@1",
          '{"world":"order-ops@1","layers":[{"id":"rule.latency@1","params":{"seconds":5}}]}',
          file,
        ],
      },
      defaultGym(),
    );
    assert.equal(config.variants?.length, 3);
    assert.deepEqual(config.worlds, ["order-ops@1"], "the experiment's worlds are the variants' base worlds");
    assert.ok(config.agents.includes("careful"), "default agents are the base world's policies");
    assert.throws(
      () => experimentFromFlags(undefined, { variant: ["{not json"] }, defaultGym()),
      (e: Error & { code?: string }) => e.code === "bad_variant",
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("an experiment file's variants are kept; its worlds come from them when it lists none", () => {
  const config = experimentFromFlags(
    path.resolve(import.meta.dirname, "../../examples/variants.yaml"),
    {},
    defaultGym(),
  );
  assert.equal(config.variants?.length, 7);
  assert.deepEqual(config.worlds, ["order-ops@1"]);
});
