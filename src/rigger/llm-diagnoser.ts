/**
 * The rigger's optional LLM diagnosis: asks a model (through the gym's provider layer: OpenAI chat
 * completions, Anthropic messages or any OpenAI-compatible server) to name weaknesses in the baseline
 * trials, as JSON, and validates every claim before the pipeline sees it. The model reads the trials'
 * tool calls, their answers and the verifier's verdicts only — never the agent's own words (no action
 * meta, no reasoning, no text outside tool calls) — plus the pattern catalogue and the tools' schemas.
 * A diagnosis must name a catalogue pattern or a clearly named new one (kebab-case, two words or more,
 * with a summary), an axis of the four, and evidence (trial id, agent step indices) that exists in the
 * given trials and comes from a failed one. Invalid evidence is dropped and reported, never trusted;
 * families, difficulties and violations are recomputed from the evidence trials. The prompt and every
 * reply are kept in the returned record (the rig result carries it).
 */

import type { LlmAgentConfig } from "../agents/llm/config.ts";
import { lazyModelCaller } from "../agents/llm/lazy-caller.ts";
import type { LimiterPool } from "../agents/llm/limiter.ts";
import type { FetchFn, PromptMessage } from "../agents/llm/provider.ts";
import type { SpecContext } from "../agents/llm/spec.ts";
import type { ToolDescriptor, TrialRecord } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { trajectoryExcerpt } from "./designer-input.ts";
import { riggerLlmConfig } from "./llm-spec.ts";
import { PATTERN_DETECTORS } from "./patterns/index.ts";
import { failed, traceSteps, violationCodes } from "./trace-steps.ts";
import type { Axis, Diagnosis, Evidence, TrajectoryExcerpt } from "./types.ts";

export const AXES: readonly Axis[] = ["start_state", "action", "observation", "transition"];

/** A catalogue entry as the model reads it. */
export interface CataloguePattern {
  pattern: string;
  axis: Axis;
  summary: string;
}

/** What the diagnoser is given. */
export interface DiagnoserInput {
  world: string;
  /** The baseline trials (records with steps and verdicts). */
  trials: readonly TrialRecord[];
  tools: readonly ToolDescriptor[];
  /** Default: the detectors' catalogue (`PATTERN_DETECTORS`). */
  catalogue?: readonly CataloguePattern[];
}

/** A claim of the model the validation refused (the whole diagnosis, one evidence item, or a field). */
export interface DroppedClaim {
  /** The diagnosis's index in the reply and its pattern as the model wrote it. */
  index: number;
  pattern: string;
  /** The evidence item, when only that was dropped. */
  evidence?: { trialId: string; steps: number[] };
  reason: string;
}

/** One model call: the reply text (absent when the call failed) and what it cost. */
export interface DiagnoserCall {
  round: number;
  reply?: string;
  error?: string;
  problems: string[];
  tokens: { input: number; output: number };
}

/** What an LLM diagnosis did, kept with the rig result: prompt, replies, validated diagnoses, drops. */
export interface LlmDiagnosisRecord {
  schemaVersion: 1;
  diagnoser: string;
  /** `ok`: a reply was read (it may still hold no valid diagnosis); `failed`: no readable reply. */
  status: "ok" | "failed";
  /** Why it failed (a provider error, or replies that never held the JSON asked for). */
  error?: string;
  prompt: { system: string; user: string };
  calls: DiagnoserCall[];
  /** The trial ids the model was shown. */
  trials: string[];
  diagnoses: Diagnosis[];
  dropped: DroppedClaim[];
}

export interface LlmDiagnoser {
  readonly id: string;
  diagnose(input: DiagnoserInput): Promise<LlmDiagnosisRecord>;
}

export interface LlmDiagnoserOptions {
  config: LlmAgentConfig;
  limiters?: LimiterPool;
  fetch?: FetchFn;
  /** Format-repair rounds after an unreadable reply (default 1). */
  maxRepairRounds?: number;
  /** Trials shown to the model, failed ones first (default 24). */
  maxTrials?: number;
  /** Agent steps kept at each end of a shown trial (default 20). */
  stepsPerEnd?: number;
  /** Diagnoses read from a reply (default 6). */
  maxDiagnoses?: number;
  signal?: AbortSignal;
}

const NEW_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/;
/** Names that say nothing: `new-pattern`, `other-weakness`, `issue-2`, ... */
const VAGUE =
  /^(new|other|unknown|misc|generic|general|some|any|agent)-(pattern|weakness|issue|problem|error|failure|behaviou?r|bug)s?$|^(pattern|weakness|issue|problem)-\d+$/;

const REPLY_FORMAT = `Reply with one JSON object (a \`\`\`json block or bare JSON), nothing else:
{"diagnoses": [{"pattern": "<catalogue id, or a new kebab-case name of two words or more>",
  "axis": "start_state" | "action" | "observation" | "transition",
  "tool": "<the tool it concerns, optional>",
  "summary": "<one line: what the agent did wrong>",
  "evidence": [{"trial_id": "<a trial id shown>", "steps": [<step indices shown in that trial>]}]}]}
Evidence must come from FAILED trials and name steps that show the pattern. {"diagnoses": []} when you see none.`;

/** The trials as the model reads them: failed first, tool calls, answers and violations only. */
export function diagnosisTrials(
  trials: readonly TrialRecord[],
  max = 24,
  stepsPerEnd = 20,
): TrajectoryExcerpt[] {
  const ordered = [...trials.filter(failed), ...trials.filter((r) => !failed(r))].slice(0, max);
  // trajectoryExcerpt keeps tool, args and results (the agent's tool calls), never action meta.
  return ordered.map((r) => trajectoryExcerpt(r, stepsPerEnd, stepsPerEnd, 300));
}

export function diagnoserSystemPrompt(catalogue: readonly CataloguePattern[]): string {
  return [
    "You diagnose weaknesses of a target agent in an agent gym from its recorded trajectories: the tool",
    "calls it made, the answers it got and the verifier's violations. Name each weakness as a pattern,",
    "label it with the environment-contract axis it touches, and cite evidence: trial ids and the step",
    "indices where it shows. Only failed trials are evidence. Every claim is checked against the records.",
    "",
    "The pattern catalogue (prefer these ids; name a new pattern only when none fits):",
    ...catalogue.map((p) => `- ${p.pattern} [${p.axis}]: ${p.summary}`),
    "",
    `Axes: ${AXES.join(", ")}.`,
    "",
    REPLY_FORMAT,
  ].join("\n");
}

const json = (v: unknown) => JSON.stringify(v);

export function diagnoserTaskPrompt(
  world: string,
  tools: readonly ToolDescriptor[],
  excerpts: readonly TrajectoryExcerpt[],
): string {
  const trial = (e: TrajectoryExcerpt) =>
    [
      `## Trial ${e.trialId}: ${e.outcome} (family ${e.family}, difficulty ${e.difficulty})${e.violations.length ? `; violations ${e.violations.join(", ")}` : ""}`,
      ...e.steps.map((s) => `${s.index}. ${s.tool} ${json(s.args)} -> ${json(s.result)}`),
      ...(e.omitted ? [`(${e.omitted} middle steps omitted)`] : []),
    ].join("\n");
  return [
    `World: ${world}`,
    "",
    "Tools (name: description; JSON Schema of the arguments):",
    ...tools.map((t) => `- ${t.name}: ${t.description} ${json(t.input_schema).slice(0, 800)}`),
    "",
    `Trials (${excerpts.length}; step lines are "index. tool args -> answer"):`,
    "",
    ...excerpts.map(trial),
    "",
    "Diagnose the target's weaknesses.",
  ].join("\n");
}

/** The JSON object of a reply: a ```json block, else the outermost braces. */
function replyObject(text: string): { value?: unknown; problem?: string } {
  const fenced = /```(?:json)?[^\n]*\n([\s\S]*?)```/i.exec(text)?.[1];
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  const body = fenced ?? (start >= 0 && end > start ? text.slice(start, end + 1) : undefined);
  if (body === undefined) return { problem: "the reply holds no JSON object" };
  try {
    return { value: JSON.parse(body) };
  } catch (err) {
    return { problem: `its JSON does not parse (${errorMessage(err)})` };
  }
}

const asString = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/**
 * Validates a parsed reply against the shown trials: known or clearly named new pattern, one of the
 * four axes (a catalogue pattern keeps its catalogue axis), evidence only from shown failed trials
 * and their agent steps. Diagnoses left without evidence are dropped.
 */
export function validateDiagnoses(
  value: unknown,
  shown: readonly TrialRecord[],
  opts: {
    catalogue: readonly CataloguePattern[];
    tools: readonly ToolDescriptor[];
    max: number;
    source: string;
  },
): { diagnoses: Diagnosis[]; dropped: DroppedClaim[]; problem?: string } {
  const list = (value as { diagnoses?: unknown } | null)?.diagnoses;
  if (!Array.isArray(list)) return { diagnoses: [], dropped: [], problem: 'no "diagnoses" array' };
  const byId = new Map(shown.map((r) => [r.spec.id, r]));
  const failures = shown.filter(failed).length;
  const known = new Map(opts.catalogue.map((p) => [p.pattern, p]));
  const toolNames = new Set(opts.tools.map((t) => t.name));
  const diagnoses: Diagnosis[] = [];
  const dropped: DroppedClaim[] = [];
  const readOne = (raw: unknown, index: number): Diagnosis | undefined => {
    const item = (raw ?? {}) as Record<string, unknown>;
    const pattern = asString(item.pattern);
    const summary = asString(item.summary).slice(0, 300);
    const drop = (reason: string): undefined => {
      dropped.push({ index, pattern, reason });
      return undefined;
    };
    const entry = known.get(pattern);
    if (!entry) {
      if (!NEW_PATTERN.test(pattern) || VAGUE.test(pattern))
        return drop(
          `pattern "${pattern}" is neither a catalogue id nor a clearly named new one (kebab-case, two words or more)`,
        );
      if (!summary) return drop(`new pattern "${pattern}" comes without a summary`);
    }
    const axis = asString(item.axis) as Axis;
    if (!entry && !AXES.includes(axis)) return drop(`axis "${axis}" is not one of ${AXES.join(", ")}`);
    const tool = asString(item.tool);
    const evidence: Evidence[] = [];
    for (const ev of Array.isArray(item.evidence) ? item.evidence : []) {
      const e = (ev ?? {}) as Record<string, unknown>;
      const trialId = asString(e.trial_id ?? e.trialId);
      const steps = (Array.isArray(e.steps) ? e.steps : []).filter((s): s is number => Number.isInteger(s));
      const dropEvidence = (reason: string) =>
        dropped.push({ index, pattern, evidence: { trialId, steps }, reason });
      const record = byId.get(trialId);
      if (!record) {
        dropEvidence(`trial "${trialId}" is not among the given trials`);
        continue;
      }
      if (!failed(record)) {
        dropEvidence(`trial "${trialId}" ${record.outcome}: only failed trials are evidence`);
        continue;
      }
      const indices = new Set(traceSteps(record).map((s) => s.index));
      const bad = steps.filter((s) => !indices.has(s));
      const good = [...new Set(steps.filter((s) => indices.has(s)))].sort((a, b) => a - b);
      if (bad.length)
        dropEvidence(
          `trial "${trialId}" has no agent step ${bad.join(", ")} (its steps: 0..${indices.size - 1})`,
        );
      if (good.length === 0) {
        if (!bad.length) dropEvidence(`evidence in trial "${trialId}" names no step`);
        continue;
      }
      const same = evidence.find((x) => x.trialId === trialId);
      if (same) same.steps = [...new Set([...same.steps, ...good])].sort((a, b) => a - b);
      else evidence.push({ trialId, steps: good });
    }
    if (evidence.length === 0) return drop("no valid evidence left");
    const trials = evidence.map((e) => byId.get(e.trialId) as TrialRecord);
    const facts: JsonObject = { diagnosers: [opts.source] };
    if (tool && toolNames.has(tool)) facts.tool = tool;
    else if (tool)
      dropped.push({ index, pattern, reason: `tool "${tool}" is not a tool of the world (ignored)` });
    if (entry && axis && axis !== entry.axis)
      dropped.push({ index, pattern, reason: `axis "${axis}" replaced by the catalogue's "${entry.axis}"` });
    const sorted = (xs: string[]) => [...new Set(xs)].sort();
    return {
      pattern,
      axis: entry?.axis ?? axis,
      families: sorted(trials.map((r) => r.task.family)),
      difficulties: [...new Set(trials.map((r) => r.task.difficulty))].sort((a, b) => a - b),
      violations: sorted(trials.flatMap(violationCodes)),
      evidence,
      summary: summary || entry?.summary || pattern,
      facts,
      support: { trials: evidence.length, of: failures },
    };
  };
  for (const [index, raw] of list.slice(0, opts.max).entries()) {
    const d = readOne(raw, index);
    if (d) diagnoses.push(d);
  }
  return { diagnoses, dropped };
}

const user = (text: string): PromptMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): PromptMessage => ({
  role: "assistant",
  content: [{ type: "text", text: text || "(empty reply)" }],
});

export function llmDiagnoser(opts: LlmDiagnoserOptions): LlmDiagnoser {
  const { config } = opts;
  const callerOf = lazyModelCaller(config, opts);
  const id = `llm:${config.id}`;
  return {
    id,
    async diagnose(input) {
      const catalogue =
        input.catalogue ??
        PATTERN_DETECTORS.map((d) => ({ pattern: d.pattern, axis: d.axis, summary: d.summary }));
      const excerpts = diagnosisTrials(input.trials, opts.maxTrials ?? 24, opts.stepsPerEnd ?? 20);
      const shownIds = new Set(excerpts.map((e) => e.trialId));
      const shown = input.trials.filter((r) => shownIds.has(r.spec.id));
      const system = diagnoserSystemPrompt(catalogue);
      const first = diagnoserTaskPrompt(input.world, input.tools, excerpts);
      const record: LlmDiagnosisRecord = {
        schemaVersion: 1,
        diagnoser: id,
        status: "failed",
        prompt: { system, user: first },
        calls: [],
        trials: excerpts.map((e) => e.trialId),
        diagnoses: [],
        dropped: [],
      };
      const messages: PromptMessage[] = [user(first)];
      const rounds = opts.maxRepairRounds ?? 1;
      for (let round = 0; round <= rounds; round++) {
        let text: string;
        let tokens = { input: 0, output: 0 };
        try {
          const outcome = await (await callerOf()).call(
            { system, messages, tools: [] },
            opts.signal ?? new AbortController().signal,
          );
          text = outcome.reply.text;
          tokens = { input: outcome.reply.usage.inputTokens, output: outcome.reply.usage.outputTokens };
        } catch (err) {
          record.calls.push({ round, error: errorMessage(err), problems: [], tokens });
          record.error = `the model call failed: ${errorMessage(err)}`;
          return record;
        }
        const parsed = replyObject(text);
        const checked =
          parsed.value !== undefined
            ? validateDiagnoses(parsed.value, shown, {
                catalogue,
                tools: input.tools,
                max: opts.maxDiagnoses ?? 6,
                source: id,
              })
            : undefined;
        const problem = parsed.problem ?? checked?.problem;
        record.calls.push({ round, reply: text, problems: problem ? [problem] : [], tokens });
        if (checked && !problem) {
          record.status = "ok";
          record.diagnoses = checked.diagnoses;
          record.dropped = checked.dropped;
          delete record.error;
          return record;
        }
        record.error = `the reply could not be read: ${problem}`;
        messages.push(assistant(text), user(`Your reply could not be read: ${problem}\n\n${REPLY_FORMAT}`));
      }
      return record;
    },
  };
}

/**
 * The diagnoser of `--diagnoser llm:PROVIDER:MODEL` (or `both:PROVIDER:MODEL`), the model an `--agent`
 * LLM spec (`openai:MODEL`, `anthropic:MODEL`, `openai-compatible:MODEL@URL`, with `?options`), read
 * with the context's environment (API keys).
 */
export function llmDiagnoserFromSpec(
  spec: string,
  ctx: SpecContext & Omit<LlmDiagnoserOptions, "config">,
): LlmDiagnoser {
  return llmDiagnoser({ ...ctx, config: riggerLlmConfig("diagnoser", spec, ctx) });
}
