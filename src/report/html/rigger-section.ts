import type { RigCandidate, RigResult } from "../../rigger/rig.ts";
import { escapeHtml as e } from "./escape.ts";
import { llmDiagnosisSection } from "./rigger-llm-section.ts";

const W = 240;
const H = 16;
const x = (p: number) => Math.round(p * W * 10) / 10;

/** A small SVG: the band (shaded), the candidate's confidence interval (line) and its estimate (dot). */
export function intervalSvg(c: RigCandidate, band: [number, number]): string {
  const v = c.validation;
  if (!v || v.target.trials === 0) return '<span class="muted">not run</span>';
  const [lo, hi] = v.target.ci;
  const colour = c.decision === "ACCEPT" ? "#2a7" : c.decision === "REFINE" ? "#c90" : "#c33";
  return `<svg class="rig-ci" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="rate ${v.target.rate.toFixed(2)}, interval ${lo.toFixed(2)} to ${hi.toFixed(2)}, band ${band[0]} to ${band[1]}">
<rect x="0" y="0" width="${W}" height="${H}" fill="#f4f4f4"/>
<rect class="band" x="${x(band[0])}" y="0" width="${x(band[1] - band[0])}" height="${H}" fill="#cde"/>
<line x1="${x(lo)}" x2="${x(hi)}" y1="${H / 2}" y2="${H / 2}" stroke="${colour}" stroke-width="3"/>
<circle cx="${x(v.target.rate)}" cy="${H / 2}" r="4" fill="${colour}"/></svg>`;
}

/** Which diagnosers named a diagnosis (`rules`, `llm:...`); `rules` when the facts do not say. */
const sources = (d: RigResult["diagnoses"][number]) =>
  Array.isArray(d.facts?.diagnosers) ? d.facts.diagnosers.map(String).join(" + ") : "rules";

/**
 * The rigger section of a report: each diagnosis with links to its evidence trajectories and its
 * source, the LLM diagnosis when there is one (kept and dropped claims, replies, prompt), each
 * candidate with its interval against the band.
 */
export function riggerSection(r: RigResult): string {
  const diagnoses = r.diagnoses
    .map((d) => {
      const links = d.evidence
        .map(
          (ev) =>
            `<a class="mono" href="#trial=${encodeURIComponent(ev.trialId)}">${e(ev.trialId)}</a> <span class="muted">steps ${e(ev.steps.join(", "))}</span>`,
        )
        .join("<br>");
      return `<tr><td class="mono">${e(d.pattern)}</td><td>${e(d.axis)}</td><td>${e(d.summary ?? "")}</td><td>${e(d.families.join(", "))}</td><td>${e(d.difficulties.join(", "))}</td><td>${e(d.violations.join(", "))}</td><td>${links}</td><td class="mono">${e(sources(d))}</td></tr>`;
    })
    .join("\n");
  const candidates = r.candidates
    .map((c) => {
      const v = c.validation;
      return `<tr><td class="mono">${e(c.variantId)}</td><td class="mono">${e(c.pattern)}</td><td class="mono">${e(c.layers.join(" + "))}<details><summary>variant</summary><pre>${e(JSON.stringify(c.variant, null, 2))}</pre></details></td><td>${e(c.template ?? c.codeHash ?? c.designer)}</td><td class="decision-${e(c.decision ?? "")}"><b>${e(c.decision ?? "")}</b></td><td>${intervalSvg(c, r.band)}<br><span class="muted">${v ? `${v.target.passed}/${v.target.trials} target, known-good ${v.knownGood.passed}/${v.knownGood.trials}` : ""}</span></td><td>${e(c.reason ?? "")}</td></tr>`;
    })
    .join("\n");
  return `<section id="rigger"><h2>Rigger <small>${e(r.id)} · ${e(r.world)} · designer ${e(r.designer)} · diagnoser ${e(r.diagnoser ?? "rules")} · band [${r.band.join(", ")}]</small></h2>
<p>Baseline ${r.baseline.passed}/${r.baseline.trials} passed (this report's trials). Rollouts: baseline ${r.rollouts.baseline}, validation ${r.rollouts.validation}, total ${r.rollouts.total}. Accepted variants: ${r.accepted.length}.</p>
<h3>Diagnoses</h3>
<table class="rig-diagnoses"><thead><tr><th>pattern</th><th>axis</th><th>what</th><th>families</th><th>difficulties</th><th>violations</th><th>evidence</th><th>from</th></tr></thead><tbody>
${diagnoses || '<tr><td colspan="8" class="muted">no weakness found</td></tr>'}
</tbody></table>
${llmDiagnosisSection(r)}
<h3>Candidates</h3>
<table class="rig-candidates"><thead><tr><th>variant</th><th>pattern</th><th>layers</th><th>template / code</th><th>decision</th><th>target rate vs band</th><th>reason</th></tr></thead><tbody>
${candidates || '<tr><td colspan="7" class="muted">no candidate</td></tr>'}
</tbody></table></section>`;
}
