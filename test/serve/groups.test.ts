/** The group registry keeps the newest groups, up to its cap on members, and judges a group once all ended. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../../src/core/contracts.ts";
import type { Episode } from "../../src/serve/episode.ts";
import { GroupRegistry } from "../../src/serve/groups.ts";

function member(outcome: string | undefined) {
  const task = { id: "t" } as Task;
  const session = {
    currentTask: task,
    done: outcome !== undefined,
    end: outcome ? { outcome } : undefined,
    rewardSum: outcome === "passed" ? 1 : 0,
  } as unknown as Episode;
  return { episodeId: `ep-${Math.random()}`, session, task };
}

test("members past the cap evict the oldest groups; results as the members ended", () => {
  const groups = new GroupRegistry(4);
  const a = GroupRegistry.newId();
  groups.add(a, "t", [member("passed"), member("passed")]);
  const b = GroupRegistry.newId();
  groups.add(b, "t", [member("failed"), member(undefined)]);
  assert.deepEqual(
    [groups.doc(a)?.all_passed, groups.doc(a)?.all_failed, groups.doc(a)?.finished],
    [true, false, true],
  );
  assert.deepEqual([groups.doc(b)?.finished, groups.doc(b)?.all_failed], [false, false]);
  const c = GroupRegistry.newId();
  groups.add(c, "t", [member("failed"), member("violated")]);
  assert.equal(groups.doc(a), undefined, "the oldest group went");
  assert.ok(groups.doc(b) && groups.doc(c));
  assert.equal(groups.doc(c)?.all_failed, true);
  const big = GroupRegistry.newId();
  groups.add(
    big,
    "t",
    Array.from({ length: 6 }, () => member("passed")),
  );
  assert.ok(groups.doc(big), "the newest group stays, even past the cap");
  assert.equal(groups.doc(b), undefined);
  assert.equal(groups.doc(c), undefined);
});
