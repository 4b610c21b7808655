/**
 * `runSelftest` (`proving selftest`): the selftest preset of the checker (`PRESETS.selftest`). Every
 * scripted policy of each world plays every family through the trial pipeline (`runExperiment`), and
 * the world's promises are judged by `brokenPromise`: the known-good policy passes every generated
 * task; each bad policy fails the families it is built to fail, caught by the expected violation codes.
 */
import type { ResolveAgent } from "../agents/resolve.ts";
import type { Registry } from "../core/registry.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import { parseExperiment } from "../runner/experiment.ts";
import { runExperiment } from "../runner/run.ts";
import { brokenPromise, SOLVES } from "./expectations.ts";
import { PRESETS } from "./presets.ts";

export interface SelftestCell {
  trials: number;
  passed: number;
  violations: Record<string, number>;
}

export interface SelftestResult {
  ok: boolean;
  /** POLICY → FAMILY → counts (normative shape of `selftest --json`). */
  policies: Record<string, Record<string, SelftestCell>>;
  /** What did not hold, one sentence each. */
  problems: string[];
  worlds: string[];
  trials: number;
}

export interface SelftestOptions {
  worlds?: string[];
  difficulties?: number[];
  /** Seeds per world × family × difficulty × policy. */
  trials?: number;
  seed?: number;
  concurrency?: number;
}

/**
 * Runs every scripted policy of each world over every family and checks the world's promises:
 * the known-good policy passes every generated task; each bad policy fails the families it is
 * built to fail, caught by the expected violation codes.
 */
export async function runSelftest(
  gym: { registry: Registry; resolveAgent: ResolveAgent },
  opts: SelftestOptions = {},
): Promise<SelftestResult> {
  const preset = PRESETS.selftest;
  const registry = gym.registry;
  const worlds = (opts.worlds ?? registry.listWorlds().map((w) => w.id)).map((id) => registry.world(id));
  const policies: SelftestResult["policies"] = {};
  const problems: string[] = [];
  let total = 0;
  for (const world of worlds) {
    const config = parseExperiment({
      id: `selftest-${world.id.replace("@", "-")}`,
      worlds: [world.id],
      difficulties: opts.difficulties ?? [...preset.difficulties],
      trials: opts.trials ?? preset.seeds.length,
      seed: opts.seed ?? preset.seeds[0],
      agents: Object.keys(world.policies),
    });
    const result = await runExperiment(config, {
      registry,
      resolveAgent: gym.resolveAgent,
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
    });
    total += result.trials.length;
    const prefix = worlds.length > 1 ? `${world.id}/` : "";
    for (const t of result.trials) {
      policies[t.agent] ??= {};
      const byFamily = policies[t.agent];
      byFamily[prefix + t.family] ??= { trials: 0, passed: 0, violations: {} };
      const c = byFamily[prefix + t.family];
      c.trials++;
      if (t.outcome === "passed") c.passed++;
      for (const code of new Set(t.violations)) c.violations[code] = (c.violations[code] ?? 0) + 1;
    }
    problems.push(...checkWorld(world.id, world.knownGood, world.expectedFailures, result.trials));
  }
  return { ok: problems.length === 0, policies, problems, worlds: worlds.map((w) => w.id), trials: total };
}

function checkWorld(
  worldId: string,
  knownGood: string,
  expected: Record<string, { families: string[]; codes: string[] }>,
  trials: TrialSummary[],
): string[] {
  const problems: string[] = [];
  for (const t of trials) {
    if (t.agent === knownGood && brokenPromise(SOLVES, t)) {
      problems.push(
        `${worldId}: known-good policy ${knownGood} did not pass ${t.family} d${t.difficulty} seed ${t.seed}: ${t.outcome} (${t.reason})`,
      );
    }
  }
  for (const [policy, want] of Object.entries(expected)) {
    for (const family of want.families) {
      const rows = trials.filter((t) => t.agent === policy && t.family === family);
      for (const t of rows) {
        const broken = brokenPromise({ must: "fail", codes: want.codes }, t, PRESETS.selftest.failing);
        if (broken === "passed") {
          problems.push(
            `${worldId}: ${policy} passed ${family} d${t.difficulty} seed ${t.seed}, which it is built to fail`,
          );
        } else if (broken === "no-expected-code") {
          problems.push(
            `${worldId}: ${policy} failed ${family} d${t.difficulty} seed ${t.seed} without the expected violation (${want.codes.join(" or ")}); got ${t.violations.join(", ") || "none"}`,
          );
        }
      }
    }
  }
  return problems;
}
