import type { DroppedClaim, LlmDiagnosisRecord } from "../../rigger/llm-diagnoser.ts";
import type { RigResult } from "../../rigger/rig.ts";
import type { Diagnosis } from "../../rigger/types.ts";
import { escapeHtml as e } from "./escape.ts";

const toolOf = (d: Diagnosis) => (typeof d.facts?.tool === "string" ? d.facts.tool : undefined);
const sourcesOf = (d: Diagnosis): string[] =>
  Array.isArray(d.facts?.diagnosers)
    ? d.facts.diagnosers.filter((x): x is string => typeof x === "string")
    : [];

/**
 * What became of a validated LLM diagnosis in the rig's diagnoses: merged into a rule one (same
 * pattern and tool), added beside them, used alone (`--diagnoser llm:`), or not used.
 */
export function llmDiagnosisUse(r: RigResult, kept: Diagnosis, source: string): string {
  const tool = toolOf(kept);
  const there = r.diagnoses.find(
    (d) =>
      d.pattern === kept.pattern &&
      (!tool || !toolOf(d) || toolOf(d) === tool) &&
      sourcesOf(d).includes(source),
  );
  if (!there) return "not used";
  const sources = sourcesOf(there);
  if (sources.includes("rules")) return "merged into the rule diagnosis";
  return r.diagnoser?.startsWith("both:") ? "added to the rule diagnoses" : "used";
}

/** Evidence as links into the trajectory viewer (only validated trial ids come here). */
const evidenceLinks = (d: Diagnosis) =>
  d.evidence
    .map(
      (ev) =>
        `<a class="mono" href="#trial=${encodeURIComponent(ev.trialId)}">${e(ev.trialId)}</a> <span class="muted">steps ${e(ev.steps.join(", "))}</span>`,
    )
    .join("<br>");

/** A dropped claim's evidence as the model wrote it: plain text, never a link. */
const droppedEvidence = (x: DroppedClaim) =>
  x.evidence
    ? `<span class="mono">${e(x.evidence.trialId)}</span> <span class="muted">steps ${e(x.evidence.steps.join(", "))}</span>`
    : '<span class="muted">the whole diagnosis</span>';

const pre = (text: string) => `<pre class="rig-llm-text">${e(text)}</pre>`;

/**
 * The LLM diagnosis of a rig run, for the report's rigger section: status, the validated diagnoses
 * (kept: evidence linked, what became of each), the claims dropped with the reason, each call's reply
 * and the prompt. Every model-written string is escaped text; only validated trial ids become links.
 */
export function llmDiagnosisSection(r: RigResult): string {
  const l: LlmDiagnosisRecord | undefined = r.llmDiagnosis;
  if (!l) return "";
  const tokens = l.calls.reduce(
    (a, c) => ({ input: a.input + c.tokens.input, output: a.output + c.tokens.output }),
    { input: 0, output: 0 },
  );
  const fallback =
    l.diagnoses.length === 0 && !r.diagnoser?.startsWith("both:")
      ? " The rule diagnoses were used instead."
      : "";
  const kept = l.diagnoses
    .map(
      (d) =>
        `<tr><td class="mono">${e(d.pattern)}</td><td>${e(d.axis)}</td><td class="mono">${e(toolOf(d) ?? "")}</td><td>${e(d.summary ?? "")}</td><td>${evidenceLinks(d)}</td><td>${e(llmDiagnosisUse(r, d, l.diagnoser))}</td></tr>`,
    )
    .join("\n");
  const dropped = l.dropped
    .map(
      (x) =>
        `<tr><td>${x.index}</td><td class="mono">${e(x.pattern)}</td><td>${droppedEvidence(x)}</td><td>${e(x.reason)}</td></tr>`,
    )
    .join("\n");
  const calls = l.calls
    .map(
      (c) =>
        `<details class="rig-llm-call"><summary>call ${c.round + 1}: ${c.error ? `failed: ${e(c.error)}` : c.problems.length ? `unreadable: ${e(c.problems.join("; "))}` : "read"} <span class="muted">(${c.tokens.input} in, ${c.tokens.output} out tokens)</span></summary>${c.reply !== undefined ? pre(c.reply) : '<span class="muted">no reply</span>'}</details>`,
    )
    .join("\n");
  return `<div class="rig-llm" id="rigger-llm"><h3>LLM diagnosis <small>${e(l.diagnoser)} · ${e(r.diagnoser ?? "")}</small></h3>
<p class="rig-llm-status">Status <b>${e(l.status)}</b>${l.error ? `: ${e(l.error)}` : ""}. ${l.calls.length} call(s), ${tokens.input} input and ${tokens.output} output tokens; ${l.trials.length} trials shown; ${l.diagnoses.length} diagnoses kept, ${l.dropped.length} claims dropped.${fallback}</p>
<h4>Kept (validated against the recorded trials)</h4>
<table class="rig-llm-kept"><thead><tr><th>pattern</th><th>axis</th><th>tool</th><th>what (model's words)</th><th>evidence</th><th>used as</th></tr></thead><tbody>
${kept || '<tr><td colspan="6" class="muted">none</td></tr>'}
</tbody></table>
<h4>Dropped claims</h4>
<table class="rig-llm-dropped"><thead><tr><th>#</th><th>pattern (as written)</th><th>evidence (as written)</th><th>why dropped</th></tr></thead><tbody>
${dropped || '<tr><td colspan="4" class="muted">none</td></tr>'}
</tbody></table>
<h4>Replies</h4>
${calls || '<p class="muted">no call</p>'}
<details class="rig-llm-prompt"><summary>prompt</summary>${pre(l.prompt.system)}${pre(l.prompt.user)}</details></div>`;
}
