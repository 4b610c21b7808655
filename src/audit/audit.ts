/**
 * `auditEnvironment`: can this environment be trained on, and can it be cheated? It reuses the
 * conformance checker (`checkEnvironment`, src/testing) for what it already checks — the known-good
 * policy solves every family, same (task, seed, actions) → same trajectory, reset leaves nothing
 * behind, fuzzed bad input gets coded errors — and adds what it does not: null and random agents
 * cannot pass (cheat resistance), the same final state is judged the same twice (and after a
 * save/restore), outcomes vary across seeds for a middling agent (a learning signal), and nothing of
 * the verifier or the hidden task params reaches an agent through the tools.
 *
 * Works on a world, a harnessed variant or a remote world (`connectRemote(url).environment`): the
 * target is an environment factory plus the world whose tasks and policies to use. Reads no clock and
 * no `Math.random` (every random choice is seeded), so two audits of the same target give the same report.
 */
import type {
  Action,
  Agent,
  AgentSession,
  Environment,
  Observation,
  Task,
  TrialSpec,
  Verdict,
} from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { Rng } from "../core/rng.ts";
import { saveEnvironment } from "../harness/layer.ts";
import { checkEnvironment } from "../testing/check-environment.ts";
import { sampleValue } from "../testing/json-schema.ts";
import type { RestoreWith } from "../testing/options.ts";
import type { CheckKind, CheckResult } from "../testing/report.ts";
import type { ConversationWorldDefinition } from "../worlds/device-support/conversation-world.ts";
import { auditCustomerSimulator, formatSimulatorAudit } from "./simulator-audit.ts";

const isConversationWorld = (w: WorldDefinition): w is ConversationWorldDefinition =>
  Array.isArray((w as Partial<ConversationWorldDefinition>).customerSimulators);

export type AuditStatus = "passed" | "failed" | "not_checkable";

export const AUDIT_CHECKS = [
  "known-good-solves",
  "null-agent-fails",
  "random-agent-fails",
  "verdict-deterministic",
  "replay-deterministic",
  "reset-clean",
  "bad-input-coded",
  "learning-signal",
  "hidden-unreachable",
  "simulator-audit",
] as const;
export type AuditCheckId = (typeof AUDIT_CHECKS)[number];

export interface AuditFinding {
  id: AuditCheckId;
  title: string;
  status: AuditStatus;
  /** What was observed: the cells covered when it passed, the failures (first ones) when it failed. */
  evidence: string[];
}

export interface AuditReport {
  /** What was audited: a world id, a variant id, or a server URL. */
  target: string;
  world: string;
  ok: boolean;
  findings: AuditFinding[];
}

export interface AuditOptions {
  /** The world whose tasks, families and policies to use (required with a factory). */
  world: WorldDefinition;
  /** How the audited environments are built (default: the world's own instances). */
  environment?: EnvironmentFactory;
  /** What the report calls the target (default: the world id). */
  label?: string;
  /** Restoring saved states (default: the world's own, only for the bare world). */
  restore?: RestoreWith;
  /** Seeds per family (default [0, 1, 2]); the learning-signal check uses `signalSeeds`. */
  seeds?: number[];
  /** Difficulties (default [1, 3]). */
  difficulties?: number[];
  /** Seeds of the middling agent per family × difficulty (default 8). */
  signalSeeds?: number;
  /** Malformed calls per tool in the bad-input check (default 200). */
  fuzzPerTool?: number;
  /** Step budget of every episode (default 100). */
  maxSteps?: number;
  /** Random-agent episodes per family × difficulty × seed (default 2). */
  randomEpisodes?: number;
  /** Largest action to send, in bytes (a server's frame limit). */
  maxActionBytes?: number;
  /** Called for each environment the audit is done with (a remote one: `env.close()`). */
  dispose?: (env: Environment) => void | Promise<void>;
}

const TITLES: Record<AuditCheckId, string> = {
  "known-good-solves": "the known-good policy solves every family",
  "null-agent-fails": "a null agent (ends at once) passes nothing",
  "random-agent-fails": "a random agent passes nothing",
  "verdict-deterministic": "the same final state is judged the same, twice and after save/restore",
  "replay-deterministic": "the same seed and actions replay to the same trajectory",
  "reset-clean": "reset leaves nothing of the previous episode behind",
  "bad-input-coded": "fuzzed bad input gets coded errors, never a crash",
  "learning-signal": "outcomes vary across seeds for a middling agent",
  "hidden-unreachable": "the verifier and the hidden task params are unreachable from the tools",
  "simulator-audit":
    "the simulated customers neither leak, capitulate nor contradict themselves, and never-asking fails",
};

const MAX_EVIDENCE = 12;

interface Episode {
  task: Task;
  seed: number;
  actions: Action[];
  observations: Observation[];
  verdict: Verdict | undefined;
  /** The environment, still open (for judging again); disposed by the caller. */
  env: Environment;
  error?: string;
}

class Audit {
  readonly world: WorldDefinition;
  readonly factory: EnvironmentFactory;
  readonly seeds: number[];
  readonly difficulties: number[];
  readonly maxSteps: number;
  #n = 0;

  constructor(readonly opts: AuditOptions) {
    this.world = opts.world;
    this.factory = opts.environment ?? ((_spec, world) => world.create());
    this.seeds = opts.seeds ?? [0, 1, 2];
    if (this.seeds.length === 0 || !this.seeds.every(Number.isInteger))
      throw new ProvingError("bad_audit_options", "audit seeds must be a non-empty list of integers");
    this.difficulties = opts.difficulties ?? [1, 3];
    this.maxSteps = opts.maxSteps ?? 100;
  }

  cells(seeds = this.seeds): { family: string; difficulty: number; seed: number }[] {
    return this.world.families.flatMap((f) =>
      this.difficulties
        .filter((d) => f.difficulties.includes(d))
        .flatMap((difficulty) => seeds.map((seed) => ({ family: f.name, difficulty, seed }))),
    );
  }

  create(task: Task, seed: number): Environment {
    const spec: TrialSpec = {
      schemaVersion: 1,
      id: `audit-${++this.#n}`,
      experimentId: "audit",
      index: this.#n,
      world: this.world.id,
      family: task.family,
      difficulty: task.difficulty,
      seed,
      repeat: 0,
      agent: { id: "audit", kind: "scripted", spec: "audit" },
      budget: { maxSteps: this.maxSteps },
    };
    return this.factory(spec, this.world);
  }

  async dispose(env: Environment): Promise<void> {
    await this.opts.dispose?.(env);
  }

  fits(action: Action): boolean {
    const max = this.opts.maxActionBytes;
    return max === undefined || new TextEncoder().encode(JSON.stringify(action)).length <= max;
  }

  /** Plays one episode of `agent`; the environment stays open for the caller (dispose it). */
  async play(agent: Agent, cell: { family: string; difficulty: number; seed: number }): Promise<Episode> {
    const task = this.world.generateTask(cell);
    const env = this.create(task, cell.seed);
    const ep: Episode = { task, seed: cell.seed, actions: [], observations: [], verdict: undefined, env };
    try {
      let obs = await env.reset({ task, seed: cell.seed, episodeId: `audit-${this.#n}` });
      ep.observations.push(obs);
      const session: AgentSession = await agent.start({
        episodeId: `audit-${this.#n}`,
        world: this.world.id,
        instruction: task.instruction,
        tools: env.spec.tools,
        samplingSeed: cell.seed,
      });
      for (let i = 0; i < this.maxSteps; i++) {
        let action: Action;
        try {
          action = { callId: `a${i}`, ...(await session.act(obs)) } as Action;
        } catch {
          break; // a scripted policy with nothing more to do
        }
        ep.actions.push(action);
        const r = await env.step(structuredClone(action));
        obs = r.observation;
        ep.observations.push(obs);
        if (r.terminated || r.truncated) {
          ep.verdict = (r.info?.verdict as Verdict | undefined) ?? judge(env);
          break;
        }
      }
      ep.verdict ??= judge(env);
    } catch (err) {
      ep.error = errorMessage(err);
    }
    return ep;
  }
}

/** The verdict of an environment now, or undefined when it refuses one (a remote world before its end). */
function judge(env: Environment): Verdict | undefined {
  try {
    return env.evaluate();
  } catch (err) {
    if (err instanceof ProvingError) return undefined;
    throw err;
  }
}

const cellName = (c: { family: string; difficulty: number; seed: number }) =>
  `${c.family} d${c.difficulty} seed ${c.seed}`;

/** An agent that ends the episode at once: a terminal tool with the least arguments its schema takes. */
export function nullAgent(): Agent {
  return {
    id: "null",
    start: () => ({
      async act(obs: Observation) {
        if (obs.kind !== "task") return { tool: "__end__", args: {} };
        const terminal = obs.tools.find((t) => /submit|close|finish|done|end/i.test(t.name)) ?? obs.tools[0];
        const args = sampleValue(terminal?.input_schema ?? {}, Rng.seeded(0, "null"), ["x"], {}) as Record<
          string,
          JsonValue
        >;
        return { tool: terminal?.name ?? "__end__", args };
      },
    }),
  };
}

/** Strings an episode has shown (ids to aim random calls at). */
function collectStrings(value: unknown, pool: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > 0 && value.length <= 80) pool.add(value);
  } else if (Array.isArray(value)) for (const v of value) collectStrings(v, pool);
  else if (value && typeof value === "object") for (const v of Object.values(value)) collectStrings(v, pool);
}

/** Seeded schema-valid calls of random tools (terminal tools only now and then). */
export function randomAgent(seed: number, terminalTools: readonly string[] = []): Agent {
  return {
    id: `random-${seed}`,
    start: () => {
      const rng = Rng.seeded(seed, "audit/random-agent");
      const pool = new Set<string>();
      let tools: { name: string; input_schema: unknown }[] = [];
      return {
        async act(obs: Observation) {
          if (obs.kind === "task") {
            tools = obs.tools;
            collectStrings(obs.context, pool);
          } else collectStrings(obs.result, pool);
          let tool = rng.pick(tools);
          if (terminalTools.includes(tool.name) && rng.bool(0.8)) tool = rng.pick(tools);
          return {
            tool: tool.name,
            args: sampleValue(tool.input_schema, rng, [...pool]) as Record<string, JsonValue>,
          };
        },
      };
    },
  };
}

/** The known-good policy, but a seeded share of its moves replaced by random calls. */
export function middlingAgent(knownGood: Agent, seed: number, share = 0.3): Agent {
  return {
    id: `middling-${seed}`,
    start: async (ep) => {
      const good = await knownGood.start(ep);
      const rng = Rng.seeded(seed, "audit/middling");
      const noise = await randomAgent(seed + 7_000_003).start(ep);
      let first = true;
      return {
        async act(obs: Observation) {
          if (!first && rng.bool(share)) {
            const a = await noise.act(obs);
            if (!/submit|close/i.test(a.tool)) return a;
          }
          if (first) await noise.act(obs); // let the noise see the tools
          first = false;
          return good.act(obs);
        },
      };
    },
  };
}

/** Hidden strings of a task: under the world's `hiddenParams`, plus the task id, content hash and verifier id. */
function hiddenStrings(world: WorldDefinition, task: Task): string[] {
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

function fromChecker(id: AuditCheckId, results: CheckResult[]): AuditFinding {
  const failed = results.filter((r) => r.status === "failed");
  const passed = results.filter((r) => r.status === "passed");
  if (failed.length)
    return {
      id,
      title: TITLES[id],
      status: "failed",
      evidence: failed
        .flatMap((r) => [`${r.name}: ${r.reason ?? "failed"}`, ...r.details.slice(1, 3)])
        .slice(0, MAX_EVIDENCE),
    };
  if (!passed.length)
    return {
      id,
      title: TITLES[id],
      status: "not_checkable",
      evidence: results.map((r) => `${r.name}: ${r.reason ?? "not checkable"}`).slice(0, MAX_EVIDENCE),
    };
  return {
    id,
    title: TITLES[id],
    status: "passed",
    evidence: passed.map((r) => r.name).slice(0, MAX_EVIDENCE),
  };
}

const finding = (id: AuditCheckId, problems: string[], covered: string[]): AuditFinding => ({
  id,
  title: TITLES[id],
  status: problems.length ? "failed" : "passed",
  evidence: (problems.length ? problems : covered).slice(0, MAX_EVIDENCE),
});

/** Audits an environment; never throws for what the environment does (it fails the check instead). */
export async function auditEnvironment(opts: AuditOptions): Promise<AuditReport> {
  const a = new Audit(opts);
  const world = a.world;
  const findings: AuditFinding[] = [];
  const cells = a.cells();

  // ---- what the conformance checker already checks, reused
  const kinds: CheckKind[] = ["determinism", "reset", "bad-input", "policies"];
  const conf = await checkEnvironment(opts.environment ?? world, {
    ...(opts.environment ? { world } : {}),
    ...(opts.restore ? { restore: opts.restore } : {}),
    seeds: a.seeds,
    difficulties: a.difficulties,
    fuzzPerTool: opts.fuzzPerTool ?? 200,
    maxSteps: a.maxSteps,
    expectedFailures: {},
    ...(opts.maxActionBytes ? { maxActionBytes: opts.maxActionBytes } : {}),
    ...(opts.dispose ? { dispose: opts.dispose } : {}),
    only: (name) => kinds.some((k) => name.startsWith(k === "bad-input" ? "bad input" : k)),
  }).catch((err: unknown) => ({ checks: [] as CheckResult[], error: errorMessage(err) }));
  const byKind = (k: CheckKind) => conf.checks.filter((c) => c.kind === k);
  const knownGood = byKind("policies").filter((c) => c.name.startsWith("policies: known-good"));
  findings.push(
    "error" in conf
      ? {
          id: "known-good-solves",
          title: TITLES["known-good-solves"],
          status: "failed",
          evidence: [conf.error],
        }
      : fromChecker("known-good-solves", knownGood),
  );

  // ---- cheat resistance: null and random agents pass nothing
  const nullProblems: string[] = [];
  const randomProblems: string[] = [];
  const hiddenProblems: string[] = [];
  const verdictProblems: string[] = [];
  const judged: string[] = [];
  const leaks = (ep: Episode, who: string) => {
    const hidden = hiddenStrings(world, ep.task);
    const text = ep.observations.map((o) => JSON.stringify(o)).join("\n");
    for (const h of hidden)
      if (text.includes(JSON.stringify(h).slice(1, -1)))
        hiddenProblems.push(`${who} on ${ep.task.id}: an observation holds hidden text "${h.slice(0, 60)}"`);
  };
  const judgeAgain = async (ep: Episode, who: string) => {
    if (!ep.verdict) return;
    const again = judge(ep.env);
    if (again && canonicalJson(again) !== canonicalJson(ep.verdict))
      verdictProblems.push(
        `${who} on ${ep.task.id}: judged twice, two verdicts (passed ${ep.verdict.passed} then ${again.passed}, score ${ep.verdict.score} then ${again.score})`,
      );
    const given = opts.restore ?? (opts.environment ? undefined : (s: JsonValue) => world.restore(s));
    // a registry restores what it saved (a bare world by its id, a harness stack as the harness saves it)
    const restore =
      typeof given === "function"
        ? (env: Environment) => given(JSON.parse(JSON.stringify(env.saveState())))
        : given
          ? (env: Environment) => given.restore(JSON.parse(JSON.stringify(saveEnvironment(env))))
          : undefined;
    if (restore) {
      try {
        const copy = restore(ep.env);
        const v = copy.evaluate();
        if (canonicalJson(v) !== canonicalJson(ep.verdict))
          verdictProblems.push(`${who} on ${ep.task.id}: the restored final state is judged differently`);
      } catch (err) {
        verdictProblems.push(
          `${who} on ${ep.task.id}: restoring the final state failed: ${errorMessage(err)}`,
        );
      }
    }
    judged.push(`${who} on ${ep.task.id}`);
  };
  const terminal = world.create().spec.terminalTools;
  for (const cell of cells) {
    const nul = await a.play(nullAgent(), cell);
    if (nul.error) nullProblems.push(`${cellName(cell)}: the episode crashed: ${nul.error}`);
    else if (nul.verdict?.passed)
      nullProblems.push(
        `${cellName(cell)}: a null agent passes (${nul.actions.map((x) => x.tool).join(", ") || "no action"})`,
      );
    leaks(nul, "null");
    await judgeAgain(nul, "null");
    await a.dispose(nul.env);
    for (let r = 0; r < (opts.randomEpisodes ?? 2); r++) {
      const ep = await a.play(randomAgent(cell.seed * 1009 + r, terminal), cell);
      if (ep.error) randomProblems.push(`${cellName(cell)} #${r}: the episode crashed: ${ep.error}`);
      else if (ep.verdict?.passed)
        randomProblems.push(`${cellName(cell)} #${r}: a random agent passes in ${ep.actions.length} steps`);
      leaks(ep, "random");
      await judgeAgain(ep, "random");
      await a.dispose(ep.env);
    }
    const kg = world.policies[world.knownGood];
    if (kg) {
      const ep = await a.play(kg, cell);
      leaks(ep, world.knownGood);
      await judgeAgain(ep, world.knownGood);
      await a.dispose(ep.env);
    }
  }
  findings.push(finding("null-agent-fails", nullProblems, [`0/${cells.length} null-agent episodes pass`]));
  findings.push(
    finding("random-agent-fails", randomProblems, [
      `0/${cells.length * (opts.randomEpisodes ?? 2)} random-agent episodes pass`,
    ]),
  );
  findings.push(
    finding("verdict-deterministic", verdictProblems, [`${judged.length} final states judged twice alike`]),
  );
  findings.push(fromChecker("replay-deterministic", byKind("determinism")));
  findings.push(fromChecker("reset-clean", byKind("reset")));
  findings.push(fromChecker("bad-input-coded", byKind("bad-input")));

  // ---- learning signal: a middling agent's outcomes vary across seeds
  const kg = world.policies[world.knownGood];
  if (!kg) {
    findings.push({
      id: "learning-signal",
      title: TITLES["learning-signal"],
      status: "not_checkable",
      evidence: ["the world has no known-good policy"],
    });
  } else {
    const n = opts.signalSeeds ?? 8;
    const seeds = Array.from({ length: n }, (_, i) => 1000 + i);
    let passed = 0;
    let total = 0;
    const scores = new Set<number>();
    for (const cell of a.cells(seeds)) {
      const ep = await a.play(middlingAgent(kg, cell.seed), cell);
      total++;
      if (ep.verdict?.passed) passed++;
      if (ep.verdict) scores.add(ep.verdict.score);
      await a.dispose(ep.env);
    }
    const varied = passed > 0 && passed < total;
    findings.push({
      id: "learning-signal",
      title: TITLES["learning-signal"],
      status: varied ? "passed" : "failed",
      evidence: [
        `a middling agent (known-good with 30% random moves) passes ${passed}/${total} episodes; ${scores.size} distinct scores`,
        ...(varied
          ? []
          : [
              passed === 0
                ? "nothing passes: no reward to learn from"
                : "everything passes: nothing to learn",
            ]),
      ],
    });
  }

  // ---- the verifier and hidden params are unreachable: no tool names it, asking for it is refused
  const probe = a.cells()[0];
  if (probe) {
    const task = world.generateTask(probe);
    const env = a.create(task, probe.seed);
    try {
      await env.reset({ task, seed: probe.seed, episodeId: "audit-probe" });
      const reach = env.spec.tools.filter((t) =>
        /verif|evaluat|grade|hidden|answer|solution|reference|state|params|secret/i.test(t.name),
      );
      for (const t of reach)
        hiddenProblems.push(`the tool ${t.name} is named for the verifier or the hidden state`);
      for (const tool of ["evaluate", "verify", "saveState", "get_state", "state", "task_params"]) {
        const r = await env.step({ tool, args: {}, callId: `probe-${tool}` });
        const res = r.observation.kind === "tool_result" ? r.observation.result : undefined;
        if (!res || res.ok) hiddenProblems.push(`calling "${tool}" did not answer an error`);
        if (r.terminated) break;
      }
    } catch (err) {
      hiddenProblems.push(`probing for verifier tools crashed: ${errorMessage(err)}`);
    } finally {
      await a.dispose(env);
    }
  }
  const declared = world.hiddenParams?.length
    ? `hidden params ${world.hiddenParams.join(", ")}`
    : "no declared hidden params";
  findings.push(
    finding("hidden-unreachable", hiddenProblems, [
      `no observation of the null, random and known-good episodes holds the content hash, the verifier id or hidden text (${declared})`,
      "no tool is named for the verifier; calling evaluate/verify/saveState/get_state is refused",
    ]),
  );

  // ---- a world that plays customers: audit each of its simulators (only for such worlds)
  if (isConversationWorld(world)) {
    const evidence: string[] = [];
    const problems: string[] = [];
    for (const simulator of world.customerSimulators) {
      const r = await auditCustomerSimulator({ world, simulator });
      problems.push(...r.problems);
      evidence.push(...formatSimulatorAudit(r).split("\n"));
    }
    findings.push({
      id: "simulator-audit",
      title: TITLES["simulator-audit"],
      status: problems.length ? "failed" : "passed",
      evidence: problems.length ? [...problems, ...evidence] : evidence,
    });
  }

  const order = new Map(AUDIT_CHECKS.map((id, i) => [id, i]));
  findings.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  return {
    target: opts.label ?? world.id,
    world: world.id,
    ok: findings.every((f) => f.status !== "failed"),
    findings,
  };
}

/** The report as a table: one line per check (`ok`, `FAIL`, `n/c`), its first evidence, then more for a failure. */
export function formatAudit(report: AuditReport): string {
  const mark: Record<AuditStatus, string> = { passed: "ok  ", failed: "FAIL", not_checkable: "n/c " };
  const width = Math.max(...report.findings.map((f) => f.id.length));
  const lines = [
    `audit of ${report.target}${report.target === report.world ? "" : ` (world ${report.world})`}`,
  ];
  for (const f of report.findings) {
    lines.push(`  ${mark[f.status]} ${f.id.padEnd(width)}  ${f.evidence[0] ?? ""}`);
    if (f.status === "failed")
      for (const e of f.evidence.slice(1, 5)) lines.push(`       ${"".padEnd(width)}  ${e}`);
  }
  const failed = report.findings.filter((f) => f.status === "failed").length;
  lines.push(failed ? `✗ ${failed} check(s) failed` : "✓ every check passed");
  return lines.join("\n");
}
