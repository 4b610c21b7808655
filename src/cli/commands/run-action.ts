/**
 * What `proving run` does, loaded only when it runs (the runner, the report, the store): the
 * experiment the flags describe, the run, and the `run --json` document.
 */
import { configError } from "../../core/errors.ts";
import type { Gym } from "../../gym/gym.ts";
import { renderSeparation, variantSeparation } from "../../harness/separation.ts";
import { readVariant, variantLabel } from "../../harness/variant.ts";
import { summarizeExperiment } from "../../report/summary.ts";
import { renderTerminalReport } from "../../report/terminal.ts";
import { DEMO_EXPERIMENT, type ExperimentConfig, parseExperiment } from "../../runner/experiment.ts";
import { interruptOnSignals } from "../../runner/interrupt.ts";
import { type ExperimentResult, runExperiment } from "../../runner/run.ts";
import { budgetWithFlags } from "../agent-store-options.ts";
import { printJson, readDataFile, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { progressReporter } from "../progress.ts";
import { readVariantFlag } from "../variant-flag.ts";
import type { AnyRemoteTarget } from "./remote-target.ts";
import { writeRunReport } from "./report.ts";
import type { RunFlags } from "./run-flags.ts";
import { trialJson } from "./trial-json.ts";

/**
 * Builds the experiment from an optional file and the flags (flags win). No file and no flags: the
 * demo. No file but flags that say what to run: the demo's defaults, described by those flags (the
 * demo's description would misname it); a file keeps its own description, or none.
 */
export function experimentFromFlags(file: string | undefined, flags: RunFlags, gym: Gym): ExperimentConfig {
  const base = (file ? readDataFile(file) : { ...DEMO_EXPERIMENT }) as Record<string, unknown>;
  if (typeof base !== "object" || base === null || Array.isArray(base)) {
    throw configError("bad_experiment", `${file}: an experiment file holds one object`);
  }
  const input: Record<string, unknown> = { ...base };
  if (flags.world?.length) input.worlds = flags.world;
  if (flags.family?.length) input.families = flags.family;
  if (flags.difficulty?.length) input.difficulties = flags.difficulty;
  if (flags.agent?.length) input.agents = flags.agent;
  if (flags.trials !== undefined) input.trials = flags.trials;
  if (flags.seed !== undefined) input.seed = flags.seed;
  if (flags.repeats !== undefined) input.repeats = flags.repeats;
  if (flags.concurrency !== undefined) input.concurrency = flags.concurrency;
  if (flags.id !== undefined) input.id = flags.id;
  if (flags.variant?.length) input.variants = flags.variant.flatMap((v) => readVariantFlag(v, gym));
  const variants = Array.isArray(input.variants) ? input.variants : [];
  if (variants.length && !flags.world?.length && (flags.variant?.length || !base.worlds)) {
    // the variants' base worlds are the experiment's worlds (scripted agents are checked against them)
    input.worlds = [...new Set(variants.map((v, i) => gym.world(readVariant(v, `variants[${i}]`).world).id))];
  }
  const budget = budgetWithFlags({ ...((input.budget as object) ?? {}) }, flags) as Record<string, unknown>;
  if (flags.maxTokens !== undefined) budget.maxTokens = flags.maxTokens;
  if (flags.maxCostUsd !== undefined) budget.maxCostUsd = flags.maxCostUsd;
  if (Object.keys(budget).length) input.budget = budget;
  const worlds = ((input.worlds as string[] | undefined) ?? ["device-support@1"]).map((w) => gym.world(w));
  const defaultAgents = Object.keys(worlds[0].policies).filter((p) => worlds.every((w) => w.policies[p]));
  const config = parseExperiment(input, defaultAgents);
  if (file || !shapesTheRun(flags)) return config;
  const description = describeFlagRun(config, gym, input.agents !== undefined);
  return parseExperiment({ ...input, description }, defaultAgents);
}

/** Whether the flags say what to run (worlds, tasks, agents, seeds, variants), not only how. */
function shapesTheRun(flags: RunFlags): boolean {
  return Boolean(
    flags.world?.length ||
      flags.family?.length ||
      flags.difficulty?.length ||
      flags.agent?.length ||
      flags.variant?.length ||
      flags.trials !== undefined ||
      flags.seed !== undefined ||
      flags.repeats !== undefined,
  );
}

/** One line for an experiment run from flags: worlds · families · difficulties · agents · seeds. */
function describeFlagRun(config: ExperimentConfig, gym: Gym, agentsGiven: boolean): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const d = config.difficulties;
  return [
    config.worlds.map((w) => gym.world(w).id).join(", "),
    config.families ? `families ${config.families.join(", ")}` : "all families",
    `${d.length === 1 ? "difficulty" : "difficulties"} ${d.join(", ")}`,
    agentsGiven ? `agents ${config.agents.join(", ")}` : "all scripted agents",
    `${plural(config.trials, "seed")} from ${config.seed}`,
    ...(config.repeats > 1 ? [plural(config.repeats, "repeat")] : []),
    ...(config.variants?.length ? [plural(config.variants.length, "variant")] : []),
  ].join(" · ");
}

/** The normative `run --json` document. */
export function runJson(result: ExperimentResult) {
  const summary = summarizeExperiment(result.trials);
  return {
    experiment: { id: result.experimentId, ...result.config },
    planned: summary.planned,
    outcomes: summary.outcomes,
    pass_rate: summary.pass_rate,
    violations: summary.violations,
    trials: result.trials.map((t) => ({
      ...trialJson(t),
      score: t.score ?? 0,
      violations: t.violations,
      steps: t.steps,
    })),
    // the policies the run's learners ended with (saved: written to the store)
    ...(result.policies ? { policies: result.policies } : {}),
  };
}

/** Pass counts per variant × agent and which variants separate the known-good policy from the others. */
function variantReport(gym: Gym, result: ExperimentResult) {
  const labels: Record<string, string> = {};
  for (const v of result.config.variants ?? [])
    labels[gym.harness.variantId(v)] = variantLabel(gym.harness.normalize(v));
  const good = gym.world(result.config.worlds[0]).knownGood;
  const rows = variantSeparation(result.trials, { good, labels });
  return { rows, text: renderSeparation(rows, good) };
}

/** How long a trial's episode may wait for a session of a remote server at capacity (5 min). */
const REMOTE_CAPACITY_WAIT_MS = 300_000;

/**
 * The world of a `proving serve` server or a foreign OpenEnv server; the client (and ws) load only
 * for `--remote`. Trials past the server's session limit wait for a slot rather than fail.
 */
async function connectRemoteWorld(
  url: string,
  token: string | undefined,
  gym: Gym,
): Promise<AnyRemoteTarget> {
  const { connectAnyRemote } = await import("./remote-target.ts");
  return connectAnyRemote(url, token, gym, REMOTE_CAPACITY_WAIT_MS);
}

/** `proving run [FILE]`: the action behind the flags `registerRun` declares. */
export async function runCommand(
  file: string | undefined,
  given: RunFlags & { agentEnv?: string[]; sandbox?: string },
  gymSource: GymSource,
): Promise<void> {
  // --policy FILE|ID: the agent is that saved learner policy, played frozen
  const flags = given.policy
    ? { ...given, agent: [await (await import("./policy-flag.ts")).policyAgentSpec(given.policy, given)] }
    : given;
  // the gym reads the process environment once, on first use: the names join $PROVING_AGENT_ENV first
  if (flags.agentEnv?.length)
    process.env.PROVING_AGENT_ENV = [process.env.PROVING_AGENT_ENV, ...flags.agentEnv]
      .filter(Boolean)
      .join(",");
  if (flags.sandbox !== undefined) {
    if (!["auto", "require", "off"].includes(flags.sandbox))
      throw configError("bad_flag", `--sandbox ${flags.sandbox}: expected auto, require or off`);
    process.env.PROVING_AGENT_SANDBOX = flags.sandbox;
  }
  const gym = await gymSource();
  if (flags.split) {
    // the curriculum's splits: loaded only for --split
    const { runSplitCommand } = await import("./curriculum-actions.ts");
    const id = await runSplitCommand({ ...flags, split: flags.split }, gym);
    await writeRunReport(flags.store, id, flags.report, Boolean(flags.json));
    return;
  }
  const token = process.env.PROVING_REMOTE_TOKEN;
  const remote = flags.remote ? await connectRemoteWorld(flags.remote, token, gym) : undefined;
  const config = experimentFromFlags(
    file,
    remote && !flags.world?.length ? { ...flags, world: [remote.world] } : flags,
    gym,
  );
  const foreign = remote && config.worlds.find((w) => gym.world(w).id !== remote.world);
  if (foreign) throw configError("remote_world_mismatch", `--remote serves ${remote.world}, not ${foreign}`);
  const harnessed = Boolean(config.variants?.length);
  if (harnessed && remote) throw configError("bad_flag", "--remote cannot be combined with harness variants");
  if (flags.queue && remote) throw configError("bad_flag", "--queue cannot be combined with --remote");
  if (flags.detach && !flags.queue) throw configError("bad_flag", "--detach needs --queue");
  if (flags.attempts !== undefined && !flags.queue) throw configError("bad_flag", "--attempts needs --queue");
  const progress = progressReporter({ enabled: flags.progress !== false && !flags.detach });
  const interrupt = interruptOnSignals();
  const result = await withStore(flags.store, "write", async (store) => {
    if (flags.queue) {
      const { runQueuedExperiment } = await import("./run-queued.ts");
      return runQueuedExperiment(config, { gym, store, flags, signal: interrupt.signal, progress });
    }
    if (config.id && (await store.getExperiment(config.id))) {
      throw configError(
        "experiment_exists",
        `experiment ${config.id} exists; use \`proving resume ${config.id}\``,
      );
    }
    return runExperiment(config, {
      ...gym.runOptions(),
      store,
      signal: interrupt.signal,
      ...(flags.reuseEnvs ? { reuseEnvironments: true } : {}),
      ...(remote ? { environment: remote.environment, admission: remote.admission } : {}),
      onTrial: (_r, p) => progress.update(p),
    });
  }).finally(async () => {
    progress.stop();
    interrupt.dispose();
    await remote?.close();
  });
  if (flags.detach) return;
  const separation = harnessed ? variantReport(gym, result) : undefined;
  if (flags.json) printJson({ ...runJson(result), ...(separation ? { variants: separation.rows } : {}) });
  else {
    for (const p of result.policies ?? [])
      process.stderr.write(
        `proving: ${p.agent}: ${p.saved ? "trained the policy" : "played the policy"} ${p.policy}${p.saved ? ", saved to the store" : ""} (\`proving policies ${p.policy}\`)\n`,
      );
    process.stdout.write(
      `${renderTerminalReport(result.experimentId, summarizeExperiment(result.trials), { trials: result.trials })}\n`,
    );
    if (separation) process.stdout.write(`\n${separation.text}\n`);
  }
  await writeRunReport(flags.store, result.experimentId, flags.report, Boolean(flags.json));
  if (result.interrupted && flags.queue) {
    process.exitCode = interrupt.exitCode ?? 130; // run-queued printed how to follow the run
  } else if (result.interrupted) {
    process.stderr.write(
      `proving: interrupted; ${result.trials.filter((t) => t.outcome === "missing").length} planned trial(s) not run. Run \`proving resume ${result.experimentId}\` to finish.\n`,
    );
    process.exitCode = interrupt.exitCode ?? 130;
  } else if (result.trials.some((t) => t.outcome === "missing")) {
    // never 0 with planned trials unrecorded (whatever an agent did)
    process.stderr.write(
      `proving: ${result.trials.filter((t) => t.outcome === "missing").length} planned trial(s) have no record. Run \`proving resume ${result.experimentId}\` to finish.\n`,
    );
    process.exitCode = 1;
  }
}
