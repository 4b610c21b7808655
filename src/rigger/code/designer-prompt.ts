import type { JsonValue } from "../../core/json.ts";
import { describeRuleCodeFailure, type RuleCodeFailure } from "../../rules/rule-code-failure.ts";
import type { DesignerInput, RepairRequest, TrajectoryExcerpt } from "../types.ts";

/**
 * The LLM designer's prompts: a system prompt (the job, the prohibitions, the reply format) and user
 * messages for a first proposal, a repair of failed code, and a repair after validation. Everything
 * the model sees is bounded: trajectory steps and results are cut to fixed sizes.
 */

/** What every variant must not do, when the input gives none. */
export const DEFAULT_PROHIBITIONS: readonly string[] = [
  "Do not make the task unsolvable: a careful agent must still be able to pass every episode (faults must be transient or recoverable).",
  "Do not reach, read, change or imitate the verifier or the verdict; do not decide whether the episode passed.",
  "Do not add, change or remove reward; the rule has no reward hook and must not try to signal success.",
  "Do not leak hidden task parameters or future events to the agent.",
  "Keep the world's own semantics: change only what the agent sees or when calls fail, as a real environment could.",
];

export const REPLY_FORMAT = `Reply with one to three proposals. Each proposal is a section:

### Proposal: <one line: the weakness it exercises and how>
\`\`\`typescript
<the complete rule module: exported hooks, no imports>
\`\`\`

A proposal may instead be built-in layers only (no code), as a JSON block:

### Proposal: <one line>
\`\`\`json
{"layers": [{"id": "rule.<name>@<version>", "params": {...}}]}
\`\`\`

Write nothing else outside the sections.`;

const MAX_RESULT_CHARS = 400;
const MAX_STEPS = 24;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function json(value: unknown, max = 4000): string {
  return clip(JSON.stringify(value), max);
}

/** A trajectory excerpt as prompt text: one line per step, long results cut; at most MAX_STEPS steps. */
export function renderExcerpt(label: string, e: TrajectoryExcerpt | undefined): string {
  if (!e) return `${label}: none.`;
  const steps = e.steps.length > MAX_STEPS ? [...e.steps.slice(0, 12), ...e.steps.slice(-12)] : e.steps;
  const omitted = e.omitted + (e.steps.length - steps.length);
  const lines = steps.map(
    (s) =>
      `  #${s.index} ${s.tool}(${json(s.args, 300)}) -> ${clip(JSON.stringify(s.result as JsonValue), MAX_RESULT_CHARS)}`,
  );
  if (omitted > 0) lines.splice(Math.min(12, lines.length), 0, `  … ${omitted} steps left out …`);
  const v = e.violations.length ? `, violations: ${e.violations.join(", ")}` : "";
  return `${label}: trial ${e.trialId}, ${e.family} d${e.difficulty}, outcome ${e.outcome}${v}\n${lines.join("\n")}`;
}

/** The system prompt: the designer's job, the prohibitions, the reply format. */
export function designerSystemPrompt(input: DesignerInput): string {
  const prohibitions = input.prohibitions.length ? input.prohibitions : DEFAULT_PROHIBITIONS;
  return [
    "You design test-environment variants for an agent gym. A target agent showed a weakness (the diagnosis);",
    "you write harness rules that wrap the world and exercise exactly that weakness, so that fresh rollouts",
    "of the target pass about half the time while a careful agent still passes every time. The world's",
    "verifier judges the episode and stays untouched. Your variants never reach a live system.",
    "",
    "A variant must not:",
    ...prohibitions.map((p) => `- ${p}`),
    "",
    "The rule API:",
    input.ruleApi,
    "",
    REPLY_FORMAT,
  ].join("\n");
}

/** The first user message: the world, the diagnosis, trajectories, tools, state schema, layer catalogue. */
export function designerTaskPrompt(input: DesignerInput): string {
  const d = input.diagnosis;
  const catalogue = input.layerCatalogue?.length
    ? input.layerCatalogue.map(
        (l) => `- ${l.id}: ${l.description}${l.params ? ` params ${json(l.params, 600)}` : ""}`,
      )
    : ["(none listed)"];
  return [
    `World: ${input.world}`,
    "",
    `Diagnosis: pattern ${d.pattern} (axis ${d.axis}) in families ${d.families.join(", ") || "?"}, difficulties ${d.difficulties.join(", ") || "?"}.`,
    ...(d.summary ? [`What the agent did wrong: ${d.summary}`] : []),
    ...(d.violations.length ? [`Verifier violations seen: ${d.violations.join(", ")}`] : []),
    ...(d.facts ? [`Facts: ${json(d.facts, 1500)}`] : []),
    ...(d.support ? [`Seen in ${d.support.trials} of ${d.support.of} trials.`] : []),
    `Evidence: ${d.evidence.map((e) => `${e.trialId} steps ${e.steps.join(",")}`).join("; ") || "none"}`,
    "",
    renderExcerpt("Shortest success", input.trajectories.shortestSuccess),
    "",
    renderExcerpt("Longest failure", input.trajectories.longestFailure),
    "",
    "Tools (name: description; JSON Schema of the arguments):",
    ...input.tools.map((t) => `- ${t.name}: ${t.description} ${json(t.input_schema, 800)}`),
    "",
    `World state view (state.world) schema or sample: ${json(input.stateSchema, 4000)}`,
    "",
    "Built-in layers:",
    ...catalogue,
    "",
    "Propose variants that exercise this weakness.",
  ].join("\n");
}

/** A repair message for proposals whose code failed: each failure record, then the format again. */
export function codeRepairPrompt(failed: { rationale: string; failures: RuleCodeFailure[] }[]): string {
  const parts = failed.map(
    (f, i) =>
      `Proposal ${i + 1} (${f.rationale}) failed:\n${f.failures.map((x) => `- ${describeRuleCodeFailure(x)}`).join("\n")}`,
  );
  return [
    "Some of your proposals cannot be used as they are:",
    "",
    ...parts,
    "",
    "Send corrected proposals for these only (complete modules), in the same format.",
  ].join("\n");
}

/** A message for a reply that held no proposal in the required format. */
export function formatRepairPrompt(problem: string): string {
  return `Your reply could not be read: ${problem}\n\n${REPLY_FORMAT}`;
}

/** The repair message the rigger asks for: the proposal, why it needs repair, failures, validation. */
export function repairRequestPrompt(request: RepairRequest): string {
  const p = request.proposal;
  const body =
    p.kind === "code"
      ? `\`\`\`typescript\n${clip(p.source, 20_000)}\n\`\`\``
      : `\`\`\`json\n${JSON.stringify({ layers: p.layers })}\n\`\`\``;
  const failures = request.codeFailures?.length
    ? [
        "Failures:",
        ...request.codeFailures.map((f) => `- [${f.stage}${f.hook ? ` ${f.hook}` : ""}] ${f.message}`),
      ]
    : [];
  const v = request.validation;
  const validation = v
    ? [
        `Validation: target passed ${v.target.passed}/${v.target.trials} (rate ${v.target.rate.toFixed(2)}, interval [${v.target.ci.map((x) => x.toFixed(2)).join(", ")}]); known-good passed ${v.knownGood.passed}/${v.knownGood.trials}; verifier unchanged: ${v.verifierUnchanged}; changes outcomes: ${v.changesOutcomes}; stop: ${v.stop}.`,
      ]
    : [];
  return [
    `This proposal (${p.rationale}) needs repair: ${request.reason}`,
    "",
    body,
    "",
    ...failures,
    ...validation,
    "",
    "Send a revised proposal (or up to three) in the same format.",
  ].join("\n");
}
