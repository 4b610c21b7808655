/**
 * What an agent is told at the start of an episode, as a type: since 0.1.0 the runner never set
 * `trialId`, `taskId` or `seed` (each names the task); they are gone from `EpisodeInfo`, so no caller
 * can read or pass them (the `@ts-expect-error`s fail `tsc` while a field is still declared).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EpisodeInfo } from "../../src/core/contracts.ts";

test("EpisodeInfo is the episode id, the world, the instruction, the tools and a sampling seed", () => {
  const info: EpisodeInfo = {
    episodeId: "ep-1",
    world: "toy@1",
    instruction: "",
    tools: [],
    samplingSeed: 7,
  };
  const told = info as EpisodeInfo & Record<string, unknown>;
  // @ts-expect-error removed: it named the trial
  assert.equal(info.trialId, undefined);
  // @ts-expect-error removed: it named the task (family, difficulty, seed)
  assert.equal(info.taskId, undefined);
  // @ts-expect-error removed: the task's seed regenerates its hidden params
  assert.equal(info.seed, undefined);
  assert.deepEqual(Object.keys(told).sort(), ["episodeId", "instruction", "samplingSeed", "tools", "world"]);
});
