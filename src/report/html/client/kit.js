// Proving Ground report, browser side (1/3): shared helpers. Plain ES2020, no imports, no network;
// the report inlines kit.js, breakdown.js and viewer.js in that order. Data sits in
// <script type="application/octet-stream"> elements as gzip + base64, inflated with DecompressionStream.
(() => {
  const META = JSON.parse(document.getElementById("pg-meta").textContent);
  const MAX_JSON_CHARS = 4000;

  // ------------------------------------------------------------------ helpers

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs)
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === "class") node.className = v;
        else if (k === "style") node.setAttribute("style", v);
        else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
        else if (k === "dataset") Object.assign(node.dataset, v);
        else node.setAttribute(k, v === true ? "" : String(v));
      }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const fmt = (x) => (Number.isInteger(x) ? String(x) : Math.abs(x) < 1 ? x.toPrecision(2) : x.toFixed(1));

  async function inflate(id) {
    const node = document.getElementById(id);
    if (!node) throw new Error(`embedded data ${id} is missing`);
    const bin = atob(node.textContent.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  /** Wilson 95% score interval (same formula as src/stats/wilson.ts). */
  function wilson(k, n) {
    if (n === 0) return [0, 0, 1];
    const z = 1.959963984540054;
    const p = k / n;
    const z2 = z * z;
    const den = 1 + z2 / n;
    const centre = (p + z2 / (2 * n)) / den;
    const half = (z / den) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
    return [p, k === 0 ? 0 : Math.max(0, centre - half), k === n ? 1 : Math.min(1, centre + half)];
  }

  const outcomeBadge = (o) =>
    h("span", { class: "badge", style: `background:${META.colors[o] || "#777"}` }, o);

  function jsonBlock(value) {
    const text = JSON.stringify(value, null, 2) ?? "undefined";
    if (text.length <= MAX_JSON_CHARS) return h("pre", null, text);
    const pre = h("pre", null, `${text.slice(0, MAX_JSON_CHARS)}…`);
    const more = h(
      "button",
      {
        onclick: () => {
          pre.textContent = text;
          more.remove();
        },
      },
      `show all (${text.length} chars)`,
    );
    return h("div", null, pre, more);
  }

  function compact(value, max = 220) {
    const s = JSON.stringify(value);
    return s.length > max ? `${s.slice(0, max - 1)}…` : s;
  }

  globalThis.ProvingReport = { META, h, pct, fmt, inflate, wilson, outcomeBadge, jsonBlock, compact };
})();
