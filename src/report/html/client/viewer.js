// Proving Ground report, browser side (3/3): the trajectory viewer (filters, a paged trial list,
// one trial's steps and verdict, inflated from its compressed chunk on demand) and the start-up.
(() => {
  const { META, h, fmt, inflate, outcomeBadge, jsonBlock, compact, initBreakdown } = globalThis.ProvingReport;
  const PAGE = 50;
  const MAX_STEPS_AT_ONCE = 200;

  // ------------------------------------------------------------------ state

  let ROWS = [];
  const byId = new Map();
  const chunkCache = new Map();
  let TOOLS;
  const filters = { outcome: "", agent: "", family: "", d: "", variant: "", violation: "", q: "" };
  let matches = [];
  let page = 0;
  let selected = "";

  function chunk(i) {
    if (!chunkCache.has(i)) chunkCache.set(i, inflate(`pg-traj-${i}`));
    return chunkCache.get(i);
  }

  // ------------------------------------------------------------------ trajectory list

  const FILTERS = [
    { key: "outcome", label: "outcome", get: (r) => r.outcome },
    { key: "agent", label: "agent", get: (r) => r.agent },
    { key: "family", label: "family", get: (r) => r.family },
    { key: "d", label: "difficulty", get: (r) => String(r.d) },
    { key: "variant", label: "variant", get: (r) => r.variant },
  ];

  function initViewer() {
    const box = document.getElementById("tv-filters");
    for (const f of FILTERS) {
      const counts = new Map();
      for (const r of ROWS) counts.set(f.get(r), (counts.get(f.get(r)) || 0) + 1);
      if (f.key === "variant" && counts.size <= 1) continue;
      const values = [...counts.keys()].sort((a, b) =>
        f.key === "outcome"
          ? META.outcomes.indexOf(a) - META.outcomes.indexOf(b)
          : a < b
            ? -1
            : a > b
              ? 1
              : 0,
      );
      const select = h(
        "select",
        { id: `tv-${f.key}`, onchange: (ev) => setFilter(f.key, ev.target.value) },
        h("option", { value: "" }, `all (${ROWS.length})`),
        values.map((v) => h("option", { value: v }, `${v || "(bare world)"} (${counts.get(v)})`)),
      );
      box.append(h("label", null, `${f.label} `, select));
    }
    const codes = new Map();
    let any = 0;
    for (const r of ROWS) {
      if (r.v.length) any++;
      for (const c of new Set(r.v)) codes.set(c, (codes.get(c) || 0) + 1);
    }
    const vSelect = h(
      "select",
      { id: "tv-violation", onchange: (ev) => setFilter("violation", ev.target.value) },
      h("option", { value: "" }, "any or none"),
      h("option", { value: "*" }, `with a violation (${any})`),
      h("option", { value: "-" }, `without (${ROWS.length - any})`),
      [...codes.keys()].sort().map((c) => h("option", { value: c }, `${c} (${codes.get(c)})`)),
    );
    box.append(h("label", null, "violation ", vSelect));
    const search = h("input", {
      type: "search",
      id: "tv-q",
      placeholder: "trial id, reason, seed…",
      oninput: (ev) => setFilter("q", ev.target.value.trim().toLowerCase()),
    });
    box.append(search);
    box.append(h("button", { id: "tv-clear", onclick: () => setFilters({}) }, "clear filters"));
    const note = document.getElementById("traj-note");
    note.textContent = `${META.embedded} of ${META.planned} planned trials embedded${
      META.omitted
        ? `; ${META.omitted} recorded trials left out to keep the file small (see them with \`proving show ID\`)`
        : ""
    }`;
    document.addEventListener("keydown", (ev) => {
      if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
      if (ev.key === "j" || ev.key === "k") step(ev.key === "j" ? 1 : -1);
    });
    applyFilters();
  }

  function setFilter(key, value) {
    filters[key] = value;
    const control = document.getElementById(`tv-${key}`);
    if (control && control.value !== value) control.value = value;
    applyFilters();
  }

  function setFilters(f) {
    for (const k of Object.keys(filters)) {
      filters[k] = f[k] === undefined ? "" : String(f[k]);
      const control = document.getElementById(`tv-${k}`);
      if (control) control.value = filters[k];
    }
    applyFilters();
  }

  function applyFilters() {
    const f = filters;
    matches = ROWS.filter(
      (r) =>
        (!f.outcome || r.outcome === f.outcome) &&
        (!f.agent || r.agent === f.agent) &&
        (!f.family || r.family === f.family) &&
        (!f.d || String(r.d) === f.d) &&
        (!f.variant || r.variant === f.variant) &&
        (!f.violation ||
          (f.violation === "*"
            ? r.v.length > 0
            : f.violation === "-"
              ? r.v.length === 0
              : r.v.includes(f.violation))) &&
        (!f.q || `${r.id} ${r.reason} seed=${r.seed} ${r.agent} ${r.family}`.toLowerCase().includes(f.q)),
    );
    page = 0;
    renderList();
  }

  function renderList() {
    const pages = Math.max(1, Math.ceil(matches.length / PAGE));
    page = Math.min(page, pages - 1);
    const from = page * PAGE;
    const shown = matches.slice(from, from + PAGE);
    const pager = document.getElementById("tv-pager");
    pager.replaceChildren(
      h("span", { id: "tv-count", dataset: { count: matches.length } }, `${matches.length} trial(s)`),
      h(
        "button",
        {
          disabled: page === 0,
          onclick: () => {
            page--;
            renderList();
          },
        },
        "‹ prev",
      ),
      h("span", null, matches.length ? `${from + 1}–${from + shown.length}` : "–"),
      h(
        "button",
        {
          disabled: page >= pages - 1,
          onclick: () => {
            page++;
            renderList();
          },
        },
        "next ›",
      ),
    );
    const body = h("tbody");
    for (const r of shown) {
      const task = `${r.family} d${r.d} s${r.seed}${r.rep ? ` r${r.rep}` : ""}`;
      body.append(
        h(
          "tr",
          {
            class: r.id === selected ? "click sel" : "click",
            dataset: { trial: r.id, outcome: r.outcome },
            onclick: () => openTrial(r.id),
          },
          h("td", { class: "n" }, r.i),
          h("td", { class: "wrap" }, r.agent),
          h("td", { class: "wrap" }, task),
          h(
            "td",
            { class: "wrap" },
            outcomeBadge(r.outcome),
            r.v.map((c) => h("span", { class: "tag viol", title: c }, breakable(c))),
          ),
          h("td", { class: "n" }, r.steps),
        ),
      );
    }
    document.getElementById("tv-list").replaceChildren(
      h(
        "table",
        { id: "trial-list" },
        h(
          "colgroup",
          null,
          ["c-i", "c-agent", "c-task", "c-outcome", "c-steps"].map((c) => h("col", { class: c })),
        ),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { class: "n" }, "#"),
            h("th", null, "agent"),
            h("th", null, "task"),
            h("th", null, "outcome"),
            h("th", { class: "n" }, "steps"),
          ),
        ),
        body,
      ),
    );
  }

  /** A code that may wrap after its underscores (a <wbr> after each). */
  function breakable(code) {
    return code.split(/(?<=_)/).flatMap((part, i) => (i ? [h("wbr"), part] : [part]));
  }

  function step(delta) {
    if (matches.length === 0) return;
    const at = matches.findIndex((r) => r.id === selected);
    const next = Math.max(0, Math.min(matches.length - 1, at < 0 ? 0 : at + delta));
    page = Math.floor(next / PAGE);
    openTrial(matches[next].id);
  }

  // ------------------------------------------------------------------ trial detail

  function openTrial(id) {
    if (location.hash !== `#trial=${encodeURIComponent(id)}`)
      location.hash = `trial=${encodeURIComponent(id)}`;
    else showTrial(id);
  }

  async function showTrial(id) {
    const row = byId.get(id);
    const detail = document.getElementById("tv-detail");
    if (!row) {
      detail.replaceChildren(h("p", { class: "err-box" }, `no trial ${id} in this report`));
      return;
    }
    selected = id;
    const at = matches.findIndex((r) => r.id === id);
    if (at >= 0 && Math.floor(at / PAGE) !== page) page = Math.floor(at / PAGE);
    renderList();
    if (!row.at) {
      detail.replaceChildren(
        h("h3", null, id, " ", outcomeBadge(row.outcome)),
        h("p", null, row.reason),
        h(
          "p",
          { class: "muted" },
          row.outcome === "missing"
            ? "Planned, never ran: there is no trajectory."
            : `The trajectory was left out of this file to keep it small; see it with \`proving show ${id}\`.`,
        ),
      );
      detail.dataset.trial = id;
      return;
    }
    detail.replaceChildren(h("p", { class: "muted" }, "inflating…"));
    const [records, tools] = await Promise.all([chunk(row.at[0]), TOOLS]);
    if (selected !== id) return;
    const record = records[row.at[1]];
    detail.replaceChildren(...renderTrial(record, tools));
    detail.dataset.trial = id;
    detail.scrollTop = 0;
  }

  function kv(pairs) {
    const dl = h("dl", { class: "kv" });
    for (const [k, v] of pairs)
      if (v !== undefined && v !== "") dl.append(h("dt", null, k), h("dd", null, v));
    return dl;
  }

  function renderTrial(t, tools) {
    const s = t.spec;
    const out = [];
    out.push(
      h(
        "div",
        { class: "h" },
        h("h3", { id: "tv-title" }, h("span", { class: "mono" }, t.id), " ", outcomeBadge(t.outcome)),
        h("button", { onclick: () => step(-1), title: "previous (k)" }, "‹"),
        h("button", { onclick: () => step(1), title: "next (j)" }, "›"),
      ),
    );
    out.push(h("p", { id: "tv-reason" }, t.reason));
    out.push(
      kv([
        ["agent", `${s.agent.id} (${s.agent.kind})`],
        ["world", s.world],
        ["variant", s.variantId || ""],
        [
          "task",
          `${t.task.id} · family ${s.family} · difficulty ${s.difficulty} · seed ${s.seed} · repeat ${s.repeat}`,
        ],
        [
          "steps",
          `${t.stats.steps} · virtual ${fmt(t.stats.virtualSeconds)} s · wall ${Math.round(t.stats.wallMs)} ms`,
        ],
        [
          "tokens / cost",
          t.stats.tokensIn + t.stats.tokensOut
            ? `${t.stats.tokensIn} in + ${t.stats.tokensOut} out · $${t.stats.costUsd.toFixed(4)}`
            : "",
        ],
        ["budget", compact(s.budget)],
        ["trajectory hash", t.trajectoryHash],
        ["re-run", h("span", { class: "mono" }, `proving replay ${t.id}`)],
      ]),
    );
    if (s.variant !== undefined)
      out.push(h("details", null, h("summary", null, "variant (harness layers)"), jsonBlock(s.variant)));
    out.push(h("div", { class: "instr" }, t.task.instruction));
    out.push(
      h(
        "details",
        null,
        h("summary", null, "task parameters (hidden from the agent)"),
        jsonBlock(t.task.params),
      ),
    );

    const stepsByIndex = new Map(t.steps.map((x) => [x.index, x]));
    const violationsAt = new Map();
    const v = t.verdict;
    if (v) {
      const checks = h("ul", { class: "checks", id: "tv-checks" });
      for (const c of v.checks)
        checks.append(
          h(
            "li",
            { dataset: { check: c.name, passed: c.passed } },
            h("span", { class: c.passed ? "ok" : "no" }, c.passed ? "✓ " : "✗ "),
            h("b", null, c.name),
            `: ${c.detail}`,
          ),
        );
      const viols = h("ul", { class: "checks", id: "tv-violations" });
      for (const x of v.violations) {
        if (!violationsAt.has(x.step)) violationsAt.set(x.step, []);
        violationsAt.get(x.step).push(x);
        const target = stepsByIndex.get(x.step);
        viols.append(
          h(
            "li",
            { dataset: { code: x.code, step: x.step } },
            h("span", { class: "tag viol" }, x.code),
            " ",
            target
              ? h(
                  "a",
                  {
                    class: "f",
                    href: "#",
                    onclick: (ev) => {
                      ev.preventDefault();
                      jumpToStep(x.step);
                    },
                  },
                  `at step ${x.step}`,
                )
              : h("span", { class: "muted" }, x.step < 0 ? "not tied to a step" : `at step ${x.step}`),
            `: ${x.detail}`,
          ),
        );
      }
      out.push(
        h(
          "h3",
          null,
          `Verdict (${v.verifier}): `,
          h("span", { class: v.passed ? "ok" : "no" }, v.passed ? "passed" : "not passed"),
          ` · score ${fmt(v.score)}`,
        ),
        checks,
      );
      if (v.violations.length) out.push(h("h3", null, "Safety violations"), viols);
    } else out.push(h("p", { class: "muted" }, "No verdict: the trial ended before the verifier ran."));

    const talk = conversationOf(t);
    if (talk.messages.length) {
      out.push(h("h3", null, `Conversation with the customer (${talk.messages.length} messages${talk.who})`));
      const ul = h("ul", { class: "checks", id: "tv-conversation" });
      for (const m of talk.messages)
        ul.append(
          h(
            "li",
            { dataset: { from: m.from } },
            h("span", { class: m.from === "agent" ? "tag layer" : "tag setup" }, m.from),
            h("span", { class: "muted" }, ` t=${fmt(m.t)}s `),
            m.text,
          ),
        );
      out.push(ul);
    }
    out.push(h("h3", null, `Trajectory (${t.steps.length} steps)`));
    if (t.initial) {
      const init = t.initial;
      const toolList = typeof init.tools === "number" ? tools[init.tools] : init.tools;
      out.push(
        h(
          "div",
          { class: "step setup", id: "step-reset" },
          h(
            "div",
            { class: "h" },
            h("span", { class: "idx" }, "reset"),
            h("span", { class: "t" }, "t=0s"),
            h("span", { class: "muted" }, `first observation (${init.kind})`),
          ),
          init.context ? h("details", null, h("summary", null, "context"), jsonBlock(init.context)) : null,
          toolList
            ? h(
                "details",
                null,
                h("summary", null, `tools (${toolList.length}): ${toolList.map((x) => x.name).join(", ")}`),
                jsonBlock(toolList),
              )
            : null,
          init.kind !== "task" ? jsonBlock(init) : null,
        ),
      );
    }
    const list = h("div", { id: "tv-steps" });
    out.push(list);
    const renderSteps = (from) => {
      let prevT = from > 0 ? t.steps[from - 1].t : 0;
      const end = Math.min(t.steps.length, from + MAX_STEPS_AT_ONCE);
      for (let i = from; i < end; i++) {
        const st = t.steps[i];
        list.append(stepCard(st, prevT, violationsAt.get(st.index) || []));
        prevT = st.t;
      }
      if (end < t.steps.length) {
        const more = h(
          "button",
          {
            onclick: () => {
              more.remove();
              renderSteps(end);
            },
          },
          `show ${Math.min(MAX_STEPS_AT_ONCE, t.steps.length - end)} more steps (${t.steps.length - end} left)`,
        );
        list.append(more);
      }
    };
    renderSteps(0);
    return out;
  }

  /** The agent's messages (send_message) and the customer's replies the agent read (read_messages), in order. */
  function conversationOf(t) {
    const messages = [];
    const seen = new Set();
    for (const st of t.steps) {
      const r = st.observation && st.observation.kind === "tool_result" ? st.observation.result : undefined;
      if (st.action.tool === "send_message" && r && r.ok) {
        seen.add(r.message_id);
        messages.push({ from: "agent", t: st.t, text: String(st.action.args.text) });
      } else if (st.action.tool === "read_messages" && r && r.ok && Array.isArray(r.messages)) {
        for (const m of r.messages) {
          if (seen.has(m.message_id)) continue;
          seen.add(m.message_id);
          messages.push({ from: String(m.from), t: m.t, text: String(m.text) });
        }
      }
    }
    const c = t.task.params?.conversation?.customer;
    return { messages, who: c ? ` · customer: ${c.simulator} ${c.persona}` : "" };
  }

  function stepCard(st, prevT, violations) {
    const obs = st.observation;
    const result = obs && obs.kind === "tool_result" ? obs.result : undefined;
    const failed = result && result.ok === false;
    const tags = [];
    if (st.setup) tags.push(h("span", { class: "tag setup" }, "setup"));
    for (const l of st.layers || [])
      tags.push(h("span", { class: "tag layer", title: "harness layer that acted" }, l));
    for (const f of st.faults || [])
      tags.push(h("span", { class: "tag fault" }, typeof f === "string" ? f : compact(f, 60)));
    if (failed)
      tags.push(
        h(
          "span",
          { class: "tag fault", title: result.error.message },
          `${result.error.code}${result.error.retryable ? " (retryable)" : ""}`,
        ),
      );
    if (st.reward) tags.push(h("span", { class: "tag" }, `reward ${fmt(st.reward)}`));
    if (st.terminated) tags.push(h("span", { class: "tag" }, "terminated"));
    if (st.truncated) tags.push(h("span", { class: "tag" }, "truncated"));
    if (st.meta) {
      const m = st.meta;
      const parts = [];
      if (m.tokensIn || m.tokensOut) parts.push(`${m.tokensIn || 0}+${m.tokensOut || 0} tok`);
      if (m.costUsd) parts.push(`$${m.costUsd.toFixed(4)}`);
      if (m.latencyMs) parts.push(`${m.latencyMs} ms`);
      if (m.cached) parts.push("cached");
      if (parts.length) tags.push(h("span", { class: "tag" }, parts.join(" · ")));
    }
    for (const x of violations) tags.push(h("span", { class: "tag viol", title: x.detail }, `⚠ ${x.code}`));
    const cls = ["step", st.setup ? "setup" : "", failed ? "err" : "", violations.length ? "violated" : ""]
      .filter(Boolean)
      .join(" ");
    const dt = st.t - prevT;
    return h(
      "div",
      { class: cls, id: `step-${st.index}`, dataset: { step: st.index } },
      h(
        "div",
        { class: "h" },
        h("span", { class: "idx" }, `#${st.index}`),
        h(
          "span",
          { class: "t", title: "virtual time after the step" },
          `t=${fmt(st.t)}s${dt ? ` (+${fmt(dt)})` : ""}`,
        ),
        h("span", { class: "tool" }, st.action.tool),
        h("span", { class: "args" }, compact(st.action.args)),
        h(
          "span",
          null,
          "→ ",
          result
            ? result.ok
              ? h("span", { class: "ok" }, "ok")
              : h("span", { class: "no" }, result.error.code)
            : obs
              ? obs.kind
              : "?",
        ),
      ),
      tags.length ? h("div", null, tags) : null,
      violations.map((x) => h("div", { class: "no" }, `⚠ ${x.code}: ${x.detail}`)),
      h(
        "details",
        null,
        h("summary", null, result ? "tool result" : "observation"),
        jsonBlock(result || obs),
      ),
    );
  }

  function jumpToStep(index) {
    const node = document.getElementById(`step-${index}`);
    if (!node) return;
    node.scrollIntoView({ block: "center" });
    node.classList.remove("flash");
    void node.offsetWidth;
    node.classList.add("flash");
    const d = node.querySelector("details");
    if (d) d.open = true;
  }

  // ------------------------------------------------------------------ routing and start

  function route() {
    const m = /^#trial=(.+)$/.exec(location.hash);
    if (m) {
      showTrial(decodeURIComponent(m[1])).catch(fail);
      document.getElementById("trajectories").scrollIntoView();
    }
  }

  function fail(err) {
    document
      .getElementById("fatal")
      .replaceChildren(
        h(
          "div",
          { class: "err-box" },
          `The report could not load its data: ${err?.message ? err.message : err}`,
        ),
      );
    document.body.dataset.ready = "error";
    throw err;
  }

  async function main() {
    if (typeof DecompressionStream === "undefined")
      throw new Error("this browser has no DecompressionStream (use a current Chrome, Firefox or Safari)");
    ROWS = await inflate("pg-rows");
    for (const r of ROWS) byId.set(r.id, r);
    TOOLS = inflate("pg-tools");
    initBreakdown(ROWS, (f) => {
      setFilters(f);
      document.getElementById("trajectories").scrollIntoView();
    });
    initViewer();
    for (const node of document.querySelectorAll("[data-filter-outcome]"))
      node.addEventListener("click", () => {
        setFilters({ outcome: node.dataset.filterOutcome });
        document.getElementById("trajectories").scrollIntoView();
      });
    for (const node of document.querySelectorAll("[data-filter-violation]"))
      node.addEventListener("click", () => {
        setFilters({ violation: node.dataset.filterViolation });
        document.getElementById("trajectories").scrollIntoView();
      });
    window.addEventListener("hashchange", route);
    route();
    document.body.dataset.ready = "1";
  }

  main().catch(fail);
})();
