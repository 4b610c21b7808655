/**
 * The harness treats every layer alike: `setup.replay@1`, `link@1` and each rule are a
 * `LayerDefinition` (describe, normalize, wrap, restore), none is special-cased by id, and the saved
 * state a registered factory reads is checked, not cast (a state that is not a stack says so).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonValue } from "../../src/core/json.ts";
import { HARNESS_STACK_TYPE } from "../../src/harness/layer.ts";
import { makeHarness } from "./helpers.ts";

const harness = makeHarness();
const source = fs.readFileSync(new URL("../../src/harness/harness.ts", import.meta.url), "utf8");

test("harness.ts names no layer id and casts nothing through unknown", () => {
  assert.doesNotMatch(source, /as unknown as/);
  assert.doesNotMatch(source, /SETUP_REPLAY_ID|LINK_ID|"setup\.replay@1"|"link@1"/);
});

test("the layers are listed as before: setup, link, then the rules in the order they were given", () => {
  const ids = harness.layers().map((l) => l.id);
  assert.deepEqual(ids.slice(0, 2), ["setup.replay@1", "link@1"]);
  assert.deepEqual(ids.slice(2), harness.ruleIds());
  assert.ok(harness.ruleIds().every((id) => id.startsWith("rule.")));
});

const notSaved: [string, JsonValue, string][] = [
  [HARNESS_STACK_TYPE, 3, "a number"],
  [HARNESS_STACK_TYPE, { env: { type: "order-ops@1" }, layers: [] }, "an env without state"],
  [HARNESS_STACK_TYPE, { env: { type: "order-ops@1", state: {} }, layers: [{ id: "x" }] }, "a bare layer"],
  ["setup.replay@1", { below: null, layer: null }, "no below"],
  ["rule.latency@1", "not a layer", "a string"],
];
for (const [type, state, what] of notSaved) {
  test(`a saved ${type} state that is not one (${what}) is wrong_state_type, not a TypeError`, () => {
    assert.throws(
      () => harness.registry.restore({ type, state }),
      (e: unknown) => e instanceof ProvingError && e.code === "wrong_state_type" && e.fault === "internal",
    );
  });
}
