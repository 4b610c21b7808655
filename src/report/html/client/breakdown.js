// Proving Ground report, browser side (2/3): the breakdown table (agent × family × difficulty ×
// variant, grouped as the reader picks), computed in the page from the embedded trial rows.
(() => {
  const { META, h, pct, wilson } = globalThis.ProvingReport;
  let ROWS = [];
  let onPick = () => {};

  // ------------------------------------------------------------------ breakdown

  const DIMS = [
    { key: "agent", label: "agent", get: (r) => r.agent },
    { key: "family", label: "family", get: (r) => r.family },
    { key: "d", label: "difficulty", get: (r) => r.d },
    { key: "variant", label: "variant", get: (r) => r.variant || `${r.world} (bare)` },
  ];
  const dimsOn = new Set(["agent", "family"]);
  const MAX_CELLS = 300;
  let showAllCells = false;

  function initBreakdown(rows, pick) {
    ROWS = rows;
    onPick = pick;
    const box = document.getElementById("bd-dims");
    box.append(h("label", null, "group by:"));
    for (const d of DIMS) {
      const distinct = new Set(ROWS.map(d.get)).size;
      const input = h("input", {
        type: "checkbox",
        checked: dimsOn.has(d.key),
        dataset: { dim: d.key },
        onchange: (ev) => {
          if (ev.target.checked) dimsOn.add(d.key);
          else dimsOn.delete(d.key);
          renderBreakdown();
        },
      });
      box.append(h("label", null, input, ` ${d.label} (${distinct})`));
    }
    renderBreakdown();
  }

  function cellOf(rows) {
    const outcomes = {};
    const codes = {};
    let passed = 0;
    let violated = 0;
    for (const r of rows) {
      outcomes[r.outcome] = (outcomes[r.outcome] || 0) + 1;
      if (r.outcome === "passed") passed++;
      if (r.v.length) violated++;
      for (const c of new Set(r.v)) codes[c] = (codes[c] || 0) + 1;
    }
    return {
      planned: rows.length,
      passed,
      violated,
      outcomes,
      codes,
      ran: rows.length - (outcomes.missing || 0),
    };
  }

  function stackBar(outcomes, n) {
    const bar = h("span", {
      class: "stack",
      title: Object.entries(outcomes)
        .map(([o, c]) => `${o}: ${c}`)
        .join(", "),
    });
    for (const o of META.outcomes)
      if (outcomes[o])
        bar.append(h("span", { style: `width:${(100 * outcomes[o]) / n}%;background:${META.colors[o]}` }));
    return bar;
  }

  function ciBar(p, lo, hi) {
    return h(
      "span",
      { class: "cibar", title: `${pct(p)} [${pct(lo)}, ${pct(hi)}]` },
      h("i", { style: `left:${100 * lo}%;width:${100 * (hi - lo)}%` }),
      h("b", { style: `left:calc(${100 * p}% - 1px)` }),
    );
  }

  function renderBreakdown() {
    const dims = DIMS.filter((d) => dimsOn.has(d.key));
    const groups = new Map();
    for (const r of ROWS) {
      const key = JSON.stringify(dims.map((d) => d.get(r)));
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    // order each dimension's values as they first appear in the manifest (config order)
    const rank = dims.map((d) => {
      const m = new Map();
      for (const r of ROWS) if (!m.has(d.get(r))) m.set(d.get(r), m.size);
      return m;
    });
    const keys = [...groups.keys()].sort((a, b) => {
      const x = JSON.parse(a);
      const y = JSON.parse(b);
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return rank[i].get(x[i]) - rank[i].get(y[i]);
      return 0;
    });
    const head = h(
      "tr",
      null,
      dims.map((d) => h("th", null, d.label)),
      h("th", { class: "n" }, "planned"),
      h("th", { class: "n" }, "ran"),
      h("th", { class: "n" }, "passed"),
      h("th", null, "pass rate [Wilson 95%]"),
      h("th", { class: "n" }, "violated"),
      h("th", null, "violation codes"),
      h("th", null, "outcomes"),
    );
    const line = (labels, rows, isTotal) => {
      const c = cellOf(rows);
      const [p, lo, hi] = wilson(c.passed, c.planned);
      const tr = h(
        "tr",
        {
          class: "click",
          title: "list these trials",
          dataset: { cell: JSON.stringify(labels) },
          onclick: () => {
            if (isTotal) onPick({});
            else {
              const f = {};
              dims.forEach((d, i) => {
                f[d.key === "variant" ? "variant" : d.key] =
                  d.key === "variant" ? rows[0].variant : String(labels[i]);
              });
              onPick(f);
            }
          },
        },
        labels.map((l) => h("td", null, isTotal ? h("b", null, l) : l)),
        h("td", { class: "n" }, c.planned),
        h("td", { class: "n" }, c.ran),
        h("td", { class: "n" }, c.passed),
        h(
          "td",
          { dataset: { rate: p, lo, hi } },
          `${pct(p)} `,
          h("span", { class: "muted" }, `[${pct(lo)}, ${pct(hi)}]`),
          ciBar(p, lo, hi),
        ),
        h("td", { class: c.violated ? "n no" : "n" }, c.violated),
        h(
          "td",
          null,
          Object.entries(c.codes).map(([code, n]) => h("span", { class: "tag viol" }, `${code} ${n}`)),
        ),
        h("td", null, stackBar(c.outcomes, c.planned)),
      );
      return tr;
    };
    const body = h("tbody");
    const shown = showAllCells ? keys : keys.slice(0, MAX_CELLS);
    for (const k of shown) body.append(line(JSON.parse(k), groups.get(k), false));
    if (shown.length < keys.length)
      body.append(
        h(
          "tr",
          null,
          h(
            "td",
            { colspan: dims.length + 7 },
            h(
              "button",
              {
                onclick: () => {
                  showAllCells = true;
                  renderBreakdown();
                },
              },
              `show all ${keys.length} rows`,
            ),
          ),
        ),
      );
    if (dims.length) body.append(line(["all", ...dims.slice(1).map(() => "")], ROWS, true));
    else body.append(line([], ROWS, true));
    const box = document.getElementById("bd-table");
    box.replaceChildren(h("table", { id: "breakdown-table" }, h("thead", null, head), body));
  }

  globalThis.ProvingReport.initBreakdown = initBreakdown;
})();
