/**
 * `proving audit URL` for a server we did not write (a foreign OpenEnv server, played through
 * `connectForeign`'s world and environment factory): the audit's checks that need no policy of ours
 * run as usual — null and random agents cannot pass, the same seed and actions replay to the same
 * trajectory, reset leaves nothing behind, bad input gets coded answers, hidden state (where the server
 * declares it) never reaches an observation — and two more: two concurrent episodes do not touch each
 * other (`session-isolation`), and, where its tools reach a filesystem, no file they can read gives
 * away the answer or the grader (`reward-reachability`, src/audit/reward-reachability.ts). What needs
 * a known-good policy (that the tasks are solvable, a learning signal) is `not_checkable`: a foreign
 * server ships none.
 */
import type { Action, Environment, Observation, StepResult } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { randomAgent } from "../testing/index.ts";
import {
  type AuditFinding,
  type AuditOptions,
  type AuditReport,
  auditEnvironment,
  auditTitle,
} from "./audit.ts";
import { createEpisode, resetOptions } from "./foreign-episode.ts";
import { probeRewardReachability } from "./reward-reachability.ts";

/** Steps of each episode in the isolation check. */
const ISOLATION_STEPS = 8;

const NO_POLICY: Partial<Record<AuditFinding["id"], string>> = {
  "known-good-solves":
    "a server we did not write ships no known-good policy: whether its tasks can be solved is not known",
  "learning-signal":
    "the middling agent plays the known-good policy with random moves: a server we did not write has none",
};

export interface ForeignAuditOptions extends Omit<AuditOptions, "environment" | "restore"> {
  /** The foreign server's world (`connectForeign(url).world`). */
  world: WorldDefinition;
  environment: EnvironmentFactory;
}

/** Audits a foreign server; never throws for what the server does (it fails the check instead). */
export async function auditForeign(opts: ForeignAuditOptions): Promise<AuditReport> {
  // its error codes are its own (OpenEnv's MCP tools answer a pydantic validation error as
  // `execution_error`): bad input must get a coded answer, whatever the code
  const report = await auditEnvironment({
    ...opts,
    difficulties: opts.difficulties ?? [1],
    badCallCodes: opts.badCallCodes ?? "any",
  });
  const findings = report.findings.map((f): AuditFinding => {
    const why = NO_POLICY[f.id];
    return why && f.status !== "passed" ? { ...f, status: "not_checkable", evidence: [why] } : f;
  });
  const played = await replayAndIsolation(opts);
  const at = findings.findIndex((f) => f.id === "replay-deterministic");
  if (at >= 0 && findings[at]!.status === "not_checkable") findings[at] = played.replay;
  findings.push(played.isolation);
  findings.push(await probeRewardReachability(opts));
  return { ...report, ok: findings.every((f) => f.status !== "failed"), findings };
}

/** One episode's trajectory as text: every observation, reward and end, in order. */
type Trace = string[];

const traceOf = (obs: Observation, r?: StepResult) =>
  JSON.stringify(r ? [r.observation, r.reward, r.terminated, r.truncated] : obs);

async function dispose(opts: ForeignAuditOptions, env: Environment): Promise<void> {
  await opts.dispose?.(env);
}

/** Plays `actions` (or, with none given, a random agent's, recorded) on a fresh episode of `seed`. */
async function playAlone(opts: ForeignAuditOptions, seed: number, actions: Action[]): Promise<Trace> {
  const env = create(opts, seed);
  try {
    const trace = [traceOf(await env.reset(resetOptions(opts.world, seed)))];
    for (const a of actions) {
      const r = await env.step(a);
      trace.push(traceOf(r.observation, r));
      if (r.terminated || r.truncated) break;
    }
    return trace;
  } finally {
    await dispose(opts, env);
  }
}

const create = (opts: ForeignAuditOptions, seed: number) => createEpisode(opts, `isolation-${seed}`);

/** `text` around where it first differs from `other` (for the evidence). */
function near(text: string | undefined, other: string | undefined): string {
  if (text === undefined) return "(ended)";
  let i = 0;
  while (i < text.length && text[i] === other?.[i]) i++;
  const from = Math.max(0, i - 40);
  return `${from > 0 ? "…" : ""}${text.slice(from, from + 120)}`;
}

const first = (x: Trace, y: Trace) => {
  const at = x.findIndex((t, i) => t !== y[i]);
  return at < 0 && x.length !== y.length ? Math.min(x.length, y.length) : at;
};

/**
 * Per seed: two episodes at once (seeds s and s + 1000, random agents, steps interleaved), then
 * episode s's actions replayed alone twice. `replay`: the two replays start alike (reset by seed) and
 * stay alike (steps); `isolation`: episode s played beside another is the episode played alone.
 */
async function replayAndIsolation(
  opts: ForeignAuditOptions,
): Promise<{ replay: AuditFinding; isolation: AuditFinding }> {
  const finding =
    (id: "replay-deterministic" | "session-isolation") =>
    (status: AuditFinding["status"], evidence: string[]): AuditFinding => ({
      id,
      title: auditTitle(id),
      status,
      evidence,
    });
  const replay = finding("replay-deterministic");
  const isolation = finding("session-isolation");
  const seeds = opts.seeds ?? [0, 1];
  const replayed: string[] = [];
  const isolated: string[] = [];
  let replayFailure: AuditFinding | undefined;
  let isolationFailure: AuditFinding | undefined;
  try {
    for (const seed of seeds) {
      const { actions, trace: together, refused } = await playBeside(opts, seed);
      const before = await playAlone(opts, seed, actions);
      const after = await playAlone(opts, seed, actions);
      const differs = first(before, after);
      if (differs === 0)
        replayFailure ??= replay("failed", [
          `seed ${seed}: reset twice with the same seed, two different starts`,
          `first:  ${near(before[0], after[0])}`,
          `second: ${near(after[0], before[0])}`,
        ]);
      else if (differs > 0)
        replayFailure ??= replay("failed", [
          `seed ${seed}: the same seed and ${actions.length} actions, two trajectories from step ${differs}`,
        ]);
      else replayed.push(`seed ${seed}: reset and ${actions.length} random steps replay alike`);
      if (differs >= 0) {
        isolationFailure ??= isolation("not_checkable", [
          `seed ${seed}: the server does not replay an episode alike (see replay-deterministic), so a second episode's influence cannot be told apart`,
        ]);
        continue;
      }
      if (refused) {
        isolationFailure ??= isolation("not_checkable", [
          `seed ${seed}: the server refused a second concurrent session (${refused}): it plays one episode at a time`,
        ]);
        continue;
      }
      const at = first(before, together);
      if (at >= 0)
        isolationFailure ??= isolation("failed", [
          `seed ${seed}: with a second episode (seed ${seed + 1000}) running alongside, step ${at} differs from the same episode played alone`,
          `alone:    ${near(before[at], together[at])}`,
          `together: ${near(together[at], before[at])}`,
        ]);
      else isolated.push(`seed ${seed} beside seed ${seed + 1000}: ${actions.length} steps, as alone`);
    }
  } catch (err) {
    const broken = [`an episode failed: ${errorMessage(err)}`];
    return {
      replay: replayFailure ?? replay("failed", broken),
      isolation: isolationFailure ?? isolation("failed", broken),
    };
  }
  return {
    replay: replayFailure ?? replay("passed", replayed),
    isolation: isolationFailure ?? isolation("passed", isolated),
  };
}

/** Episode `seed` played by a random agent beside episode `seed + 1000`, steps interleaved: its actions and trace. */
async function playBeside(
  opts: ForeignAuditOptions,
  seed: number,
): Promise<{ actions: Action[]; trace: Trace; refused?: string }> {
  const a = create(opts, seed);
  const b = create(opts, seed + 1000);
  const actions: Action[] = [];
  const trace: Trace = [];
  let refused: string | undefined;
  try {
    let obsA = await a.reset(resetOptions(opts.world, seed));
    let obsB = await b.reset(resetOptions(opts.world, seed + 1000));
    trace.push(traceOf(obsA));
    const agentA = await agentFor(opts.world, seed, a);
    const agentB = await agentFor(opts.world, seed + 1000, b);
    let liveB = true;
    for (let i = 0; i < ISOLATION_STEPS; i++) {
      const act = await agentA.act(obsA);
      const action: Action = { tool: act.tool, args: act.args, callId: `c${i}` };
      actions.push(action);
      const r = await a.step(action);
      trace.push(traceOf(r.observation, r));
      obsA = r.observation;
      if (liveB) {
        const other = await agentB.act(obsB);
        try {
          const rb = await b.step({ tool: other.tool, args: other.args, callId: `c${i}` });
          obsB = rb.observation;
          liveB = !(rb.terminated || rb.truncated);
        } catch (err) {
          if (!(err instanceof ProvingError && err.code === "remote_capacity_reached")) throw err;
          refused = errorMessage(err);
          liveB = false;
        }
      }
      if (r.terminated || r.truncated) break;
    }
    return { actions, trace, ...(refused ? { refused } : {}) };
  } finally {
    await dispose(opts, a);
    await dispose(opts, b);
  }
}

/** A random agent started on an environment's tools. */
async function agentFor(world: WorldDefinition, seed: number, env: Environment) {
  return randomAgent(seed, env.spec.terminalTools).start({
    episodeId: `isolation-${seed}`,
    world: world.id,
    instruction: "",
    tools: env.spec.tools,
    samplingSeed: seed,
  });
}
