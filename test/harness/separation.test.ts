/** Which variants separate the known-good policy from the others. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderSeparation, variantSeparation } from "../../src/harness/separation.ts";

const row = (variantId: string, agent: string, outcome: string, violations: string[] = []) => ({
  variantId,
  world: "w@1",
  agent,
  outcome,
  violations,
});

test("variantSeparation: separates, partly, not at all, or breaks the known-good policy", () => {
  const rows = variantSeparation(
    [
      row("v-a", "good", "passed"),
      row("v-a", "bad1", "violated", ["dup"]),
      row("v-a", "bad2", "failed"),
      row("v-b", "good", "passed"),
      row("v-b", "bad1", "passed"),
      row("v-b", "bad2", "failed"),
      row("v-c", "good", "passed"),
      row("v-c", "bad1", "passed"),
      row("v-c", "bad2", "passed"),
      row("v-d", "good", "failed"),
      row("v-d", "bad1", "failed"),
      row("v-d", "bad2", "failed"),
    ],
    { good: "good", labels: { "v-a": "lost reply" } },
  );
  assert.deepEqual(
    rows.map((r) => [r.variant, r.status]),
    [
      ["v-a", "separates"],
      ["v-b", "partly separates"],
      ["v-c", "does not separate"],
      ["v-d", "breaks the known-good policy"],
    ],
  );
  assert.deepEqual(rows[1].caught, ["bad2"]);
  assert.deepEqual(rows[0].agents.bad1, { passed: 0, planned: 1, violations: { dup: 1 } });
  const text = renderSeparation(rows, "good");
  assert.match(text, /lost reply \(v-a\)\s+1\/1\s+0\/1 dup\s+0\/1\s+separates/);
  assert.match(text, /partly separates \(catches bad2\)/);
  assert.equal(variantSeparation([row("v-a", "x", "passed")])[0].status, "no known-good");
});
