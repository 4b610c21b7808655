import fs from "node:fs";
import { OUTCOMES } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import type { Experiment } from "../../store/store.ts";
import { OUTCOME_COLORS } from "./charts.ts";
import { escapeHtml as e, scriptJson } from "./escape.ts";
import { PAGE_CSS } from "./page-style.ts";

/** Forbids every network fetch: the page runs only its own inline script and styles. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The browser scripts, in page order: helpers, the breakdown table, the trajectory viewer. */
const CLIENT_FILES = ["kit.js", "breakdown.js", "viewer.js"];
let clientScripts: string[] | undefined;

/** The report's browser scripts (plain JS shipped with the package, inlined into every report). */
export function viewerScripts(): string[] {
  clientScripts ??= CLIENT_FILES.map((f) => {
    const text = fs.readFileSync(new URL(`./client/${f}`, import.meta.url), "utf8");
    if (/<\/script/i.test(text)) throw new Error(`client/${f} must not contain a closing script tag`);
    return text;
  });
  return clientScripts;
}

export interface PageParts {
  experiment: Experiment;
  generatedAt: string;
  sections: string[];
  hasComparison: boolean;
  /** gzip + base64 page rows. */
  rows: string;
  /** gzip + base64 tool lists. */
  tools: string;
  /** gzip + base64 trajectory chunks. */
  chunks: string[];
  meta: JsonObject;
}

const blob = (id: string, data: string) =>
  `<script type="application/octet-stream" data-encoding="gzip+base64" id="${id}">${data}</script>`;

/** The whole self-contained page. */
export function renderPage(p: PageParts): string {
  const x = p.experiment;
  const meta = { ...p.meta, outcomes: [...OUTCOMES], colors: OUTCOME_COLORS, chunks: p.chunks.length };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="proving-ground">
<title>${e(x.id)} · Proving Ground report</title>
<style>${PAGE_CSS}</style></head>
<body>
<header class="top"><h1>Proving Ground · <span class="mono" id="experiment-id">${e(x.id)}</span></h1>
<nav><a href="#headline">Headline</a><a href="#breakdown">Breakdown</a><a href="#distributions">Distributions</a>${p.hasComparison ? '<a href="#comparison">Comparison</a>' : ""}<a href="#trajectories">Trajectories</a><a href="#config">Config</a></nav>
<span class="sub">status ${e(x.status)} · created ${e(x.createdAt)} · report generated ${e(p.generatedAt)}</span></header>
<main>
<noscript><div class="warn">The breakdown table and the trajectory viewer need JavaScript; the headline, charts and comparison do not.</div></noscript>
<div id="fatal"></div>
${p.sections.join("\n")}
<section id="trajectories"><h2>Trajectories <small id="traj-note"></small></h2>
<div class="controls" id="tv-filters"></div>
<div class="viewer"><div><div class="pager" id="tv-pager"></div><div class="list" id="tv-list"></div></div>
<div class="detail" id="tv-detail"><p class="muted">Pick a trial on the left (or press j / k).</p></div></div></section>
<section id="config"><h2>Experiment config</h2><details><summary>show the experiment definition as stored</summary><pre>${e(JSON.stringify(x.config, null, 2))}</pre></details></section>
</main>
<script type="application/json" id="pg-meta">${scriptJson(meta)}</script>
${blob("pg-rows", p.rows)}
${blob("pg-tools", p.tools)}
${p.chunks.map((c, i) => blob(`pg-traj-${i}`, c)).join("\n")}
${viewerScripts()
  .map((js) => `<script>${js}</script>`)
  .join("\n")}
</body></html>
`;
}
