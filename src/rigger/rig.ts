import { inspectionOf } from "../core/capabilities.ts";
import type { TrialRecord } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { type LayerSpec, type VariantSpec, variantId } from "../harness/variant.ts";
import { buildDesignerInput } from "./designer-input.ts";
import { detectContext, diagnose } from "./diagnose.ts";
import type { LlmDiagnoser, LlmDiagnosisRecord } from "./llm-diagnoser.ts";
import { mergeDiagnoses } from "./merge-diagnoses.ts";
import type { DetectContext } from "./patterns/index.ts";
import { type KnobSearch, refineKnob, startSearch } from "./refine-knob.ts";
import type { Rollouts } from "./rollouts.ts";
import { traceSteps } from "./trace-steps.ts";
import type {
  Candidate,
  CodeRealizer,
  Designer,
  DesignerInput,
  Diagnosis,
  Proposal,
  RepairRequest,
} from "./types.ts";
import {
  type CandidateValidation,
  DEFAULT_VALIDATION_PLAN,
  type ValidationPlan,
  type ValidationTasks,
  validateCandidate,
} from "./validate-candidate.ts";

/** A candidate as a rig run reports it: the contract's fields plus where it was validated and at what cost. */
export interface RigCandidate extends Candidate {
  tasks: { families: string[]; difficulties: number[] };
  targetRollouts: number;
  knownGoodRollouts: number;
  experiments: string[];
  trialIds: string[];
}

export interface RigResult {
  schemaVersion: 1;
  id: string;
  world: string;
  designer: string;
  band: [number, number];
  baseline: { experiment: string; trials: number; passed: number };
  /** `rules`, or the LLM diagnoser's id (`llm:...`) alone or with the rules (`both:llm:...`). */
  diagnoser?: string;
  diagnoses: Diagnosis[];
  /** The LLM diagnosis (prompt, replies, validated diagnoses, dropped claims), when one was asked for. */
  llmDiagnosis?: LlmDiagnosisRecord;
  candidates: RigCandidate[];
  accepted: VariantSpec[];
  rollouts: { baseline: number; validation: number; total: number; perPattern: Record<string, number> };
}

export interface RigOptions {
  /** Run id: the prefix of every experiment the rig records. */
  id: string;
  rollouts: Rollouts;
  designer: Designer;
  /**
   * An LLM diagnosis besides the rule-based one: `llm` uses its validated diagnoses (the rule ones
   * when it fails or finds none), `both` merges them into the rule ones (same pattern: evidence union).
   */
  diagnoser?: { llm: LlmDiagnoser; mode: "llm" | "both" };
  plan?: ValidationPlan;
  /** Target validation rollouts per weakness (default 50). */
  budgetPerWeakness?: number;
  /** Baseline rollouts of the target on the base world: every family × difficulties × trials seeds. */
  baseline?: { difficulties?: number[]; trials?: number; seed?: number; families?: string[] };
  /** Diagnoses worked on, most supported first (default 3). */
  maxDiagnoses?: number;
  /** Candidates validated per weakness, refinements and repairs included (default 6). */
  maxCandidates?: number;
  /** Turns code proposals into rule layers (the sandboxed code path); without it code proposals are rejected. */
  realizeCode?: CodeRealizer;
  /** Rule API text for designers (default: the layer API text). */
  ruleApi?: string;
  /** The layers designers may use (`gym.harness.layers()`). */
  layers?: readonly { id: string; description: string }[];
  /** Called with each decided candidate and its provenance (the CLI stores them). */
  record?: (candidate: RigCandidate, provenance: JsonObject) => Promise<void>;
  onEvent?: (message: string) => void;
}

const passed = (rs: readonly TrialRecord[]) => rs.filter((r) => r.outcome === "passed").length;

/**
 * The tasks a candidate about `tool` is validated on: the families where the target called the tool
 * and only got ok answers in a passing baseline trial (where the weakness does not show yet), else
 * the diagnosis's own families; the baseline's difficulties; the base pass counts on those families.
 */
export function validationTasks(d: Diagnosis, baseline: readonly TrialRecord[]): ValidationTasks {
  const tool = typeof d.facts?.tool === "string" ? d.facts.tool : undefined;
  const clean = new Set<string>();
  if (tool) {
    for (const r of baseline) {
      if (r.outcome !== "passed") continue;
      const calls = traceSteps(r).filter((s) => s.tool === tool);
      if (calls.length > 0 && calls.every((s) => s.result?.ok)) clean.add(r.task.family);
    }
  }
  const families = clean.size ? [...clean].sort() : [...d.families];
  const on = baseline.filter((r) => families.includes(r.task.family));
  const difficulties = [...new Set(on.map((r) => r.task.difficulty))].sort((a, b) => a - b);
  return {
    families,
    difficulties: difficulties.length ? difficulties : d.difficulties,
    base: { trials: on.length, passed: passed(on) },
  };
}

/** A data-only view of a fresh episode of the world (its shape is the state schema designers see). */
async function sampleView(rollouts: Rollouts): Promise<JsonObject> {
  const world = rollouts.world;
  try {
    const env = world.create();
    const family = world.families[0];
    const difficulty = family.difficulties?.[0] ?? 1;
    const task = world.generateTask({ family: family.name, difficulty, seed: 0 });
    await env.reset({ task, seed: 0 });
    return JSON.parse(JSON.stringify(inspectionOf(env).view())) as JsonObject;
  } catch {
    return {};
  }
}

interface Queued {
  proposal: Proposal;
  search?: KnobSearch;
  refinements: string[];
  repairs: number;
}

/**
 * The rigger's pipeline: baseline rollouts of the target on the base world, diagnosis, proposals from
 * the designer, fresh-rollout validation of each candidate and a decision (ACCEPT, REFINE: bisect the
 * knob or ask the designer to repair, REJECT), within a budget of target rollouts per weakness. Stops
 * a weakness at its first accepted variant.
 */
export async function rig(o: RigOptions): Promise<RigResult> {
  const plan = o.plan ?? DEFAULT_VALIDATION_PLAN;
  const budget = o.budgetPerWeakness ?? 50;
  const world = o.rollouts.world;
  const say = o.onEvent ?? (() => {});
  const env = world.create();
  const ctx: DetectContext = detectContext(env.spec);
  const families = o.baseline?.families?.length ? o.baseline.families : world.families.map((f) => f.name);
  const baselineId = `${o.id}-baseline`;
  const baseline = await o.rollouts.run({
    id: baselineId,
    families,
    difficulties: o.baseline?.difficulties ?? [1, 2, 3],
    trials: o.baseline?.trials ?? 2,
    seed: o.baseline?.seed ?? 0,
    player: "target",
  });
  say(`baseline: ${passed(baseline)}/${baseline.length} passed`);
  const ruleDiagnoses = diagnose(baseline, ctx);
  let diagnoses = ruleDiagnoses;
  let llmDiagnosis: LlmDiagnosisRecord | undefined;
  if (o.diagnoser) {
    llmDiagnosis = await o.diagnoser.llm.diagnose({
      world: world.id,
      trials: baseline,
      tools: env.spec.tools,
    });
    const found = llmDiagnosis.diagnoses;
    say(
      `llm diagnosis (${o.diagnoser.llm.id}): ${llmDiagnosis.status}${llmDiagnosis.error ? ` (${llmDiagnosis.error})` : ""}, ${found.length} diagnoses, ${llmDiagnosis.dropped.length} claims dropped`,
    );
    if (o.diagnoser.mode === "both") diagnoses = mergeDiagnoses(ruleDiagnoses, found);
    else if (found.length) diagnoses = found;
  }
  const stateView = await sampleView(o.rollouts);
  const candidates: RigCandidate[] = [];
  const accepted: VariantSpec[] = [];
  const perPattern: Record<string, number> = {};
  const seen = new Set<string>();
  for (const d of diagnoses.slice(0, o.maxDiagnoses ?? 3)) {
    say(`diagnosis: ${d.pattern} (${d.summary ?? ""}) in ${d.support?.trials ?? 0} failed trials`);
    const input: DesignerInput = buildDesignerInput({
      world: world.id,
      diagnosis: d,
      baseline,
      tools: env.spec.tools,
      stateView,
      ...(o.ruleApi ? { ruleApi: o.ruleApi } : {}),
      ...(o.layers ? { layers: o.layers } : {}),
    });
    const tasks = validationTasks(d, baseline);
    const key = `${d.pattern}${typeof d.facts?.tool === "string" ? `:${d.facts.tool}` : ""}`;
    let used = 0;
    let count = 0;
    const queue: Queued[] = (await o.designer.propose(input)).map((proposal) => ({
      proposal,
      refinements: [],
      repairs: 0,
    }));
    const repair = async (q: Queued, req: RepairRequest) => {
      if (q.repairs >= 2) return;
      const fixed = await o.designer.repair(input, req);
      queue.unshift(
        ...fixed.map((proposal) => ({ proposal, refinements: q.refinements, repairs: q.repairs + 1 })),
      );
    };
    while (queue.length && count < (o.maxCandidates ?? 6) && budget - used >= plan.minTrials) {
      const q = queue.shift() as Queued;
      const p = q.proposal;
      let layers: LayerSpec[] = p.kind === "layers" ? p.layers : [...(p.layers ?? [])];
      let codeHash: string | undefined;
      if (p.kind === "code") {
        const made = o.realizeCode
          ? await o.realizeCode(p)
          : {
              ok: false as const,
              failures: [{ stage: "load" as const, message: "no code path configured" }],
            };
        if (!made.ok) {
          say(`code proposal failed: ${made.failures.map((f) => `${f.stage}: ${f.message}`).join("; ")}`);
          await repair(q, {
            proposal: p,
            reason: "the code did not compile or run",
            codeFailures: made.failures,
          });
          continue;
        }
        layers = [...layers, made.layer];
        codeHash = made.codeHash;
      }
      const variant: VariantSpec = { world: world.id, layers };
      const vid = o.rollouts.variantId ? o.rollouts.variantId(variant) : variantId(variant);
      if (seen.has(vid)) continue;
      seen.add(vid);
      count++;
      const search = q.search ?? (p.kind === "layers" ? startSearch(p) : undefined);
      const v: CandidateValidation = await validateCandidate({
        id: `${o.id}-${vid}`,
        variant,
        tasks,
        rollouts: o.rollouts,
        plan,
        remaining: budget - used,
        seed: 1000,
        refinable: (p.kind === "layers" && search !== undefined) || (p.kind === "code" && q.repairs < 2),
      });
      used += v.targetRollouts;
      let decision = v.decision;
      let reason = v.reason;
      let next: Queued | undefined;
      const more = count < (o.maxCandidates ?? 6) && budget - used >= plan.minTrials;
      if (decision === "REFINE" && !more) {
        decision = "REJECT";
        reason = `${reason}; the weakness's rollout budget (or candidate limit) is spent`;
      } else if (decision === "REFINE" && p.kind === "layers" && search && v.direction) {
        const r = refineKnob(p, search, v.direction);
        if (r && p.knob) {
          const step = `${p.knob.param} ${String(layers[p.knob.layer]?.params[p.knob.param])} -> ${r.value}`;
          reason = `${reason} (${step})`;
          next = {
            proposal: r.proposal,
            search: r.search,
            refinements: [...q.refinements, step],
            repairs: q.repairs,
          };
        } else {
          decision = "REJECT";
          reason = `${reason}; the intensity has no untried value left`;
        }
      }
      const candidate: RigCandidate = {
        variant,
        variantId: vid,
        layers: layers.map((l) => l.id),
        designer: o.designer.id,
        ...(p.kind === "layers" && p.template ? { template: p.template } : {}),
        ...(codeHash ? { codeHash } : {}),
        pattern: d.pattern,
        decision,
        reason,
        validation: v.validation,
        ...(q.refinements.length ? { refinements: q.refinements } : {}),
        tasks: { families: tasks.families, difficulties: tasks.difficulties },
        targetRollouts: v.targetRollouts,
        knownGoodRollouts: v.knownGoodRollouts,
        experiments: v.experiments,
        trialIds: v.trialIds,
      };
      candidates.push(candidate);
      say(`candidate ${vid} (${candidate.layers.join(" + ")}): ${decision}: ${reason}`);
      await o.record?.(candidate, provenance(o.id, d, candidate, tasks));
      if (decision === "ACCEPT") {
        accepted.push(variant);
        break;
      }
      if (next) queue.unshift(next);
      else if (decision === "REFINE" && p.kind === "code") {
        await repair(q, { proposal: p, reason, validation: v.validation });
      }
    }
    perPattern[key] = (perPattern[key] ?? 0) + used;
  }
  const validation = Object.values(perPattern).reduce((a, b) => a + b, 0);
  return {
    schemaVersion: 1,
    id: o.id,
    world: world.id,
    designer: o.designer.id,
    band: plan.band,
    baseline: { experiment: baselineId, trials: baseline.length, passed: passed(baseline) },
    diagnoser: o.diagnoser
      ? o.diagnoser.mode === "both"
        ? `both:${o.diagnoser.llm.id}`
        : o.diagnoser.llm.id
      : "rules",
    diagnoses,
    ...(llmDiagnosis ? { llmDiagnosis } : {}),
    candidates,
    accepted,
    rollouts: { baseline: baseline.length, validation, total: baseline.length + validation, perPattern },
  };
}

/** What the store keeps with a decided candidate: the diagnosis, evidence, template or code hash, validation. */
function provenance(rigId: string, d: Diagnosis, c: RigCandidate, tasks: ValidationTasks): JsonObject {
  return JSON.parse(
    JSON.stringify({
      schemaVersion: 1,
      source: "rigger",
      rig: rigId,
      diagnosis: d,
      evidenceTrials: d.evidence.map((e) => e.trialId),
      designer: c.designer,
      template: c.template ?? null,
      codeHash: c.codeHash ?? null,
      decision: c.decision,
      reason: c.reason,
      validation: c.validation,
      tasks,
      refinements: c.refinements ?? [],
      experiments: c.experiments,
    }),
  ) as JsonValue as JsonObject;
}
