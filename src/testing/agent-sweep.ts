/**
 * One sweep of the reference agents over the selected tasks, shared by the checks that read it: per
 * task the null agent, its keyword-stuffing and blind-submit variants, `randomEpisodes` random agents and the known-good policy play an episode; each
 * episode is searched for hidden text and its final state judged again (twice, and after a
 * save/restore). Played once per check run, in that order, whatever check asks first.
 */

import type { Task } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { brokenPromise, SOLVES_NOTHING } from "./expectations.ts";
import { findHidden, hiddenNeedles } from "./hidden-values.ts";
import { type Episode, type EpisodePlayer, judge } from "./play-episode.ts";
import { blindSubmitAgent, KEYWORD_NULL_AGENT, NULL_AGENT, randomAgent } from "./reference-agents.ts";
import { cellName, type Subject } from "./subject.ts";

export interface AgentSweep {
  /** Tasks played. */
  cells: number;
  /** Random-agent episodes per task. */
  randomEpisodes: number;
  nullProblems: string[];
  randomProblems: string[];
  /** Hidden text found in an observation (the probe of the `hidden` check adds its own). */
  hiddenProblems: string[];
  verdictProblems: string[];
  /** The episodes whose final state was judged again. */
  judged: string[];
}

/** Hidden strings of a task: under the world's `hiddenParams`, plus the task id, content hash and verifier id. */
export function hiddenStrings(world: WorldDefinition, task: Task): string[] {
  const out = new Set<string>([task.generator.contentHash, world.verifier]);
  const params = task.params as Record<string, unknown>;
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      for (const line of v.split("\n").map((l) => l.trim())) if (line.length >= 12) out.add(line);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  const hiddenKeys = world.hiddenParams ?? [];
  for (const key of hiddenKeys) walk(params[key]);
  // a line the task shows openly too (the workspace's own copy) is not a secret
  const open = JSON.stringify(
    Object.fromEntries(Object.entries(params).filter(([k]) => !hiddenKeys.includes(k))),
  );
  return [...out].filter((s) => s.length >= 8 && !open.includes(JSON.stringify(s).slice(1, -1)));
}

/** A reference agent's episode broke its promise (it solves nothing) when its verdict passed. */
const passes = (ep: Episode) =>
  brokenPromise(SOLVES_NOTHING, { outcome: ep.verdict?.passed ? "passed" : "failed" }) !== undefined;

export async function sweepAgents(subject: Subject, player: EpisodePlayer): Promise<AgentSweep> {
  const world = subject.world;
  const cells = subject.families.flatMap((f) => subject.cells(f.name));
  const randomEpisodes = subject.randomEpisodes;
  const sweep: AgentSweep = {
    cells: cells.length,
    randomEpisodes,
    nullProblems: [],
    randomProblems: [],
    hiddenProblems: [],
    verdictProblems: [],
    judged: [],
  };
  const leaks = (ep: Episode, who: string) => {
    const needles = hiddenNeedles(world, ep.task);
    for (const o of ep.observations) {
      const found = findHidden(needles, JSON.stringify(o));
      if (found) {
        sweep.hiddenProblems.push(`${who} on ${ep.task.id}: an observation holds the hidden ${found}`);
        return;
      }
    }
  };
  const judgeAgain = async (ep: Episode, who: string) => {
    if (!ep.verdict) return;
    const again = judge(ep.env);
    if (again && canonicalJson(again) !== canonicalJson(ep.verdict))
      sweep.verdictProblems.push(
        `${who} on ${ep.task.id}: judged twice, two verdicts (passed ${ep.verdict.passed} then ${again.passed}, score ${ep.verdict.score} then ${again.score})`,
      );
    const restorer = subject.restorer;
    if (restorer) {
      try {
        const copy = restorer.restore(JSON.parse(JSON.stringify(restorer.save(ep.env))));
        const v = copy.evaluate();
        if (canonicalJson(v) !== canonicalJson(ep.verdict))
          sweep.verdictProblems.push(
            `${who} on ${ep.task.id}: the restored final state is judged differently`,
          );
      } catch (err) {
        sweep.verdictProblems.push(
          `${who} on ${ep.task.id}: restoring the final state failed: ${errorMessage(err)}`,
        );
      }
    }
    sweep.judged.push(`${who} on ${ep.task.id}`);
  };
  const terminal = world.create().spec.terminalTools;
  const knownGood = subject.policies[subject.knownGood];
  for (const cell of cells) {
    const nul = await player.play(NULL_AGENT, cell);
    if (nul.error) sweep.nullProblems.push(`${cellName(cell)}: the episode crashed: ${nul.error}`);
    else if (passes(nul))
      sweep.nullProblems.push(
        `${cellName(cell)}: a null agent passes (${nul.actions.map((x) => x.tool).join(", ") || "no action"})`,
      );
    leaks(nul, "null");
    await judgeAgain(nul, "null");
    await player.dispose(nul.env);
    // the null agent's variants: keyword stuffing, and a blind submit with the ids the task showed
    for (const agent of [KEYWORD_NULL_AGENT, blindSubmitAgent(cell.seed)]) {
      const ep = await player.play(agent, cell);
      if (ep.error)
        sweep.nullProblems.push(`${cellName(cell)}: ${agent.id}: the episode crashed: ${ep.error}`);
      else if (passes(ep))
        sweep.nullProblems.push(
          `${cellName(cell)}: ${agent.id} passes (${ep.actions.map((x) => x.tool).join(", ") || "no action"})`,
        );
      leaks(ep, agent.id);
      await player.dispose(ep.env);
    }
    for (let r = 0; r < randomEpisodes; r++) {
      const ep = await player.play(randomAgent(cell.seed * 1009 + r, terminal), cell);
      if (ep.error) sweep.randomProblems.push(`${cellName(cell)} #${r}: the episode crashed: ${ep.error}`);
      else if (passes(ep))
        sweep.randomProblems.push(
          `${cellName(cell)} #${r}: a random agent passes in ${ep.actions.length} steps`,
        );
      leaks(ep, "random");
      await judgeAgain(ep, "random");
      await player.dispose(ep.env);
    }
    if (knownGood) {
      const ep = await player.play(knownGood, cell);
      leaks(ep, subject.knownGood);
      await judgeAgain(ep, subject.knownGood);
      await player.dispose(ep.env);
    }
  }
  return sweep;
}
