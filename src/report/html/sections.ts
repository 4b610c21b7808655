import { OUTCOMES, type Outcome, type TrialSpec } from "../../core/contracts.ts";
import type { PairedComparison } from "../../stats/compare-paired.ts";
import type { RecordVerification } from "../../store/record-verification.ts";
import type { TrialSummary } from "../../store/store.ts";
import type { ExperimentSummary, PassHatKSummary, Rate } from "../summary.ts";
import { METRICS, OUTCOME_COLORS } from "./charts.ts";
import type { ReportComparison } from "./comparison.ts";
import { escapeHtml as e, pct } from "./escape.ts";
import { quantile } from "./page-data.ts";

const rate = (r: Rate) => `${pct(r.estimate)} <span class="muted">[${pct(r.ci[0])}, ${pct(r.ci[1])}]</span>`;

export function outcomeBadge(o: Outcome): string {
  return `<span class="badge" style="background:${OUTCOME_COLORS[o]}">${e(o)}</span>`;
}

function card(key: string, label: string, value: string, detail: string, cls = ""): string {
  return `<div class="card ${cls}" data-card="${e(key)}"><div class="k">${e(label)}</div><div class="v">${value}</div><div class="d">${detail}</div></div>`;
}

const metric = (name: string, value: string | number, raw?: number) =>
  `<span data-metric="${e(name)}"${raw !== undefined ? ` data-value="${raw}"` : ""}>${e(value)}</span>`;

/**
 * The banner over a run whose agents played without their sandbox (a `cmd:` program with no working
 * bubblewrap, recorded as `sandbox: "none"` in its agent's config): its records were within the
 * agent's reach, so its results deserve less trust. Empty when every agent was sandboxed.
 */
export function unsandboxedBanner(manifest: readonly TrialSpec[]): string {
  const agents = [
    ...new Set(manifest.filter((s) => s.agent.config?.sandbox === "none").map((s) => s.agent.id)),
  ];
  if (agents.length === 0) return "";
  return `<div class="warn" data-banner="unsandboxed">⚠ Played UNSANDBOXED (no working bubblewrap): ${agents
    .map((a) => `<span class="mono">${e(a)}</span>`)
    .join(
      ", ",
    )}. These agent programs ran with the gym user's filesystem rights and could have read the store and the checkout; run them with <span class="mono">--sandbox require</span> to refuse that.</div>`;
}

/**
 * The banner over an experiment whose records do not verify (`proving verify`): a trial row changed,
 * removed or inserted after it was recorded. Empty when they verify.
 */
export function tamperedBanner(v: RecordVerification): string {
  if (v.ok) return "";
  const names = (items: readonly { trialId: string }[]) =>
    [...new Set(items.map((i) => i.trialId))]
      .slice(0, 10)
      .map((id) => `<span class="mono">${e(id)}</span>`)
      .join(", ");
  const parts = [
    v.changed.length ? `changed: ${names(v.changed)}` : "",
    v.removed.length ? `removed: ${names(v.removed)}` : "",
    v.inserted.length ? `inserted: ${names(v.inserted)}` : "",
    ...v.experiment.map((p) => e(p)),
  ].filter(Boolean);
  return `<div class="warn" data-banner="tampered">⚠ These records do NOT verify against the store key: they were changed after they were recorded (${parts.join("; ")}). The numbers below are not to be trusted; run <span class="mono">proving verify ${e(v.experimentId)}</span>.</div>`;
}

/** The headline: planned vs ran, pass rate with its interval, outcomes, infra errors, violations. */
export function headlineSection(s: ExperimentSummary, outcomesSvg: string): string {
  const missing = s.outcomes.missing;
  const ex = s.pass_rate_excluding_infra;
  const cards = [
    card(
      "planned",
      "planned trials",
      metric("planned", s.planned),
      "every planned trial is in the denominator",
    ),
    card(
      "ran",
      "ran",
      metric("ran", s.ran),
      missing ? `<b>${metric("missing", missing)}</b> planned, never ran` : `${metric("missing", 0)} missing`,
      missing ? "bad" : "",
    ),
    card(
      "pass-rate",
      "pass rate (passed / planned)",
      metric("pass_rate", pct(s.pass_rate.estimate), s.pass_rate.estimate),
      `${metric("passed", s.outcomes.passed)} passed · Wilson 95% [${metric("pass_rate_lo", pct(s.pass_rate.ci[0]), s.pass_rate.ci[0])}, ${metric("pass_rate_hi", pct(s.pass_rate.ci[1]), s.pass_rate.ci[1])}]`,
      "good",
    ),
    ...(ex
      ? [
          card(
            "pass-rate-ex-infra",
            "excluding infra errors & missing",
            metric("pass_rate_excluding_infra", pct(ex.estimate), ex.estimate),
            `[${pct(ex.ci[0])}, ${pct(ex.ci[1])}] · leaves out ${metric("excluded", ex.excluded)} trial(s)`,
          ),
        ]
      : []),
    card(
      "infra",
      "infra-error rate",
      metric("infra_error_rate", pct(s.infra_error_rate), s.infra_error_rate),
      `${s.outcomes.infra_error} of ${s.planned} planned`,
      s.outcomes.infra_error ? "bad" : "",
    ),
    card(
      "violated",
      "trials with safety violations",
      metric("violated_trials", s.violated_trials),
      "counted apart from success: a passing trial can still violate",
      s.violated_trials ? "bad" : "",
    ),
  ];
  const shown = OUTCOMES.filter((o) => s.outcomes[o] > 0 || o === "missing" || o === "infra_error");
  const outcomeRows = shown
    .map(
      (o) =>
        `<tr class="click" data-filter-outcome="${e(o)}" title="show these trials"><td>${outcomeBadge(o)}</td><td class="n" data-outcome-count="${e(o)}">${s.outcomes[o]}</td><td class="n">${pct(s.planned ? s.outcomes[o] / s.planned : 0)}</td></tr>`,
    )
    .join("");
  const codes = Object.keys(s.violations).sort();
  const violationRows = codes.length
    ? codes
        .map(
          (c) =>
            `<tr class="click" data-filter-violation="${e(c)}" title="show these trials"><td><span class="tag viol">${e(c)}</span></td><td class="n" data-violation-count="${e(c)}">${s.violations[c]}</td><td class="n">${pct(s.planned ? s.violations[c] / s.planned : 0)}</td></tr>`,
        )
        .join("")
    : `<tr><td colspan="3" class="muted">no safety violations recorded</td></tr>`;
  return `<section id="headline"><h2>Headline <small>95% intervals are Wilson score intervals</small></h2>
<div class="cards">${cards.join("")}</div>${passHatKTable(s)}
<div class="row">
<div><h3>Outcomes by kind</h3><table id="outcomes"><thead><tr><th>outcome</th><th class="n">trials</th><th class="n">of planned</th></tr></thead><tbody>${outcomeRows}</tbody></table></div>
<div><h3>Safety violations by code</h3><table id="violations"><thead><tr><th>code</th><th class="n">trials</th><th class="n">of planned</th></tr></thead><tbody>${violationRows}</tbody></table>
<p class="note">Violations are never folded into the pass rate; click a row to see those trials.</p></div>
<div class="svg">${outcomesSvg}</div>
</div></section>`;
}

/** pass^k for k = 1..repeats, over all agents and per agent, when tasks were repeated. */
function passHatKTable(s: ExperimentSummary): string {
  const all = s.pass_hat_k;
  if (!all) return "";
  const columns: [string, PassHatKSummary][] = [
    ["all agents", all],
    ...Object.entries(s.pass_hat_k_by_agent ?? {}),
  ];
  const cell = (c: PassHatKSummary, k: number) => {
    const p = c.by_k.find((x) => x.k === k);
    return p
      ? `<td class="n" data-pass-hat-k="${k}">${pct(p.estimate)} <span class="muted">[${pct(p.ci[0])}, ${pct(p.ci[1])}]</span></td>`
      : `<td class="n muted">–</td>`;
  };
  const rows = all.by_k
    .map(({ k }) => `<tr><td>pass^${k}</td>${columns.map(([, c]) => cell(c, k)).join("")}</tr>`)
    .join("");
  return `<div id="pass-hat-k"><h3>Reliability: pass^k <small>the chance that all k repeats of a task pass (τ-bench); ${all.tasks} task(s) × ${all.repeats} repeats; 95% bootstrap over tasks</small></h3>
<table><thead><tr><th>k</th>${columns.map(([name]) => `<th class="n">${e(name)}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table>
<p class="note">Per task C(c, k) / C(n, k) from its n repeats, averaged over tasks; a missing or infra-failed repeat counts as not passed.</p></div>`;
}

/** The breakdown: a heatmap (agent × family) and the page's interactive table (agent × family × difficulty × variant). */
export function breakdownSection(heatmapSvg: string): string {
  return `<section id="breakdown"><h2>Breakdown <small>agent × family × difficulty × variant; click a row to list its trials</small></h2>
${heatmapSvg ? `<div class="svg">${heatmapSvg}</div><p class="note">Cell: passed / planned; ⚠n = trials with safety violations (red ring).</p>` : ""}
<div class="controls" id="bd-dims"></div>
<div id="bd-table" class="scroll-x"><p class="muted">loading…</p></div></section>`;
}

function summaryStats(values: number[]): string {
  if (values.length === 0) return "–";
  const s = [...values].sort((a, b) => a - b);
  const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x < 1 ? x.toPrecision(2) : x.toFixed(1));
  return `${fmt(quantile(s, 0.5))} <span class="muted">(${fmt(quantile(s, 0.9))} / ${fmt(s[s.length - 1])})</span>`;
}

/** Cost, tokens, steps and virtual time: a table per agent and static charts. */
export function distributionSection(rows: TrialSummary[], charts: string[]): string {
  const ran = rows.filter((r) => r.outcome !== "missing");
  const metrics = METRICS.filter((m) => ran.some((r) => m.value(r) > 0));
  const absent = METRICS.filter((m) => !metrics.includes(m)).map((m) => m.title);
  const agents = [...new Set(ran.map((r) => r.agent))];
  const body = agents
    .map((a) => {
      const mine = ran.filter((r) => r.agent === a);
      return `<tr><td>${e(a)}</td><td class="n">${mine.length}</td>${metrics.map((m) => `<td class="n">${summaryStats(mine.map(m.value))}</td>`).join("")}</tr>`;
    })
    .join("");
  const all = `<tr><td><b>all</b></td><td class="n">${ran.length}</td>${metrics.map((m) => `<td class="n">${summaryStats(ran.map(m.value))}</td>`).join("")}</tr>`;
  return `<section id="distributions"><h2>Cost, tokens, steps and virtual time <small>median (p90 / max) per ran trial</small></h2>
<table><thead><tr><th>agent</th><th class="n">ran</th>${metrics.map((m) => `<th class="n">${e(m.title)}</th>`).join("")}</tr></thead><tbody>${body}${all}</tbody></table>
${absent.length ? `<p class="note">Not recorded by any trial (all zero): ${e(absent.join(", "))} — scripted agents report no tokens or cost.</p>` : ""}
<div class="row svg">${charts.map((c) => `<div>${c}</div>`).join("")}</div></section>`;
}

function pairedRow(name: string, p: PairedComparison): string {
  const d = p.difference;
  const sign = (x: number) => `${x > 0 ? "+" : ""}${pct(x)}`;
  const cls = d.ci[0] > 0 ? "ok" : d.ci[1] < 0 ? "no" : "";
  return `<tr data-family="${e(name)}"><td>${e(name)}</td><td class="n">${p.pairs}</td><td class="n">${p.both_pass}</td><td class="n">${p.a_only}</td><td class="n">${p.b_only}</td><td class="n">${p.neither}</td><td class="n"><span class="${cls}">${sign(d.estimate)}</span> <span class="muted">[${sign(d.ci[0])}, ${sign(d.ci[1])}]</span></td><td class="n">${p.mcnemar.p < 0.001 ? "&lt;0.001" : p.mcnemar.p.toFixed(3)}</td></tr>`;
}

function pairedTable(id: string, first: string, entries: [string, PairedComparison][]): string {
  return `<table id="${id}"><thead><tr><th>${e(first)}</th><th class="n">pairs</th><th class="n">both pass</th><th class="n">A only</th><th class="n">B only</th><th class="n">neither</th><th class="n">A − B [95% CI]</th><th class="n">McNemar p</th></tr></thead><tbody>${entries.map(([k, p]) => pairedRow(k, p)).join("")}</tbody></table>`;
}

/** Two experiments on the same tasks: each side's headline, paired differences overall and per family. */
export function comparisonSection(c: ReportComparison, chartSvg: string): string {
  const side = (label: string, s: ReportComparison["a"]) =>
    `<tr><td><b>${label}</b></td><td class="mono">${e(s.id)}</td><td>${e(s.agents.join(", "))}</td><td class="n">${s.planned}</td><td class="n">${s.passed}</td><td class="n">${rate(s.pass_rate)}</td><td class="n">${s.violated_trials}</td></tr>`;
  const codes = [...new Set([...Object.keys(c.a.violations), ...Object.keys(c.b.violations)])].sort();
  const violations = codes.length
    ? `<h3>Safety violations by code (trials)</h3><table><thead><tr><th>code</th><th class="n">A</th><th class="n">B</th></tr></thead><tbody>${codes.map((k) => `<tr><td><span class="tag viol">${e(k)}</span></td><td class="n">${c.a.violations[k] ?? 0}</td><td class="n">${c.b.violations[k] ?? 0}</td></tr>`).join("")}</tbody></table>`
    : "";
  const p = c.paired;
  const agentPairs = p ? p.agents.map((x) => (x.a === x.b ? x.a : `${x.a} (A) vs ${x.b} (B)`)) : [];
  const problems = c.problems.length
    ? `<div class="err-box" id="cmp-problems"><b>Not comparable pair by pair${p ? "; the numbers below compare only the trials that pair up" : ""}:</b><ul>${c.problems.map((x) => `<li>${e(x)}</li>`).join("")}</ul></div>`
    : "";
  const error = c.error && !c.problems.length ? `<div class="err-box">${e(c.error)}</div>` : "";
  const numbers = p
    ? `<p class="note">${p.pairs} pairs on world, variant, family, difficulty, seed and repeat; agents: ${e(agentPairs.join("; "))}. A trial that did not pass (missing and infra errors included) is a failure on its side. Interval: Newcombe paired score interval; p: exact McNemar.</p>
<div class="row"><div>${pairedTable("cmp-family", "family", [["all", p], ...Object.entries(p.by_family)])}${
        p.agents.length > 1
          ? `<h3>Per agent</h3>${pairedTable(
              "cmp-agent",
              "agent",
              p.agents.map((x) => [x.a === x.b ? x.a : `${x.a} vs ${x.b}`, x] as [string, PairedComparison]),
            )}`
          : ""
      }</div><div class="svg">${chartSvg}</div></div>`
    : "";
  return `<section id="comparison"><h2>Comparison <small>A = this experiment, B = ${e(c.b.id)}; differences are A − B</small></h2>
<table><thead><tr><th></th><th>experiment</th><th>agents</th><th class="n">planned</th><th class="n">passed</th><th class="n">pass rate [95% CI]</th><th class="n">violated trials</th></tr></thead><tbody>${side("A", c.a)}${side("B", c.b)}</tbody></table>
${problems}${error}${c.warnings.map((w) => `<div class="warn">⚠ ${e(w)}</div>`).join("")}
${numbers}
${violations}</section>`;
}
