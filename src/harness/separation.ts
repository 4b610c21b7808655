/** Rows of an experiment, by variant and agent: enough to see which variants tell policies apart. */
export interface SeparationTrial {
  variantId?: string;
  world: string;
  agent: string;
  outcome: string;
  violations: string[];
}

export interface AgentCell {
  passed: number;
  planned: number;
  violations: Record<string, number>;
}

export interface SeparationRow {
  /** Variant id (or the world id for trials without a variant). */
  variant: string;
  label: string;
  agents: Record<string, AgentCell>;
  /** The known-good policy's pass rate here (undefined when it did not run). */
  goodRate?: number;
  /** Other agents whose pass rate is below the known-good one's. */
  caught: string[];
  /** Other agents that did at least as well as the known-good one. */
  missed: string[];
  status:
    | "separates"
    | "partly separates"
    | "does not separate"
    | "breaks the known-good policy"
    | "no known-good";
}

/**
 * For each variant: pass counts per agent, and whether it separates the known-good policy (`good`)
 * from the others — it does when the known-good passes every trial and another agent passes fewer.
 */
export function variantSeparation(
  trials: readonly SeparationTrial[],
  opts: { good?: string; labels?: Record<string, string> } = {},
): SeparationRow[] {
  const rows = new Map<string, SeparationRow>();
  for (const t of trials) {
    const key = t.variantId ?? t.world;
    let row = rows.get(key);
    if (!row) {
      row = {
        variant: key,
        label: opts.labels?.[key] ?? key,
        agents: {},
        caught: [],
        missed: [],
        status: "no known-good",
      };
      rows.set(key, row);
    }
    row.agents[t.agent] ??= { passed: 0, planned: 0, violations: {} };
    const cell = row.agents[t.agent];
    cell.planned++;
    if (t.outcome === "passed") cell.passed++;
    for (const code of new Set(t.violations)) cell.violations[code] = (cell.violations[code] ?? 0) + 1;
  }
  for (const row of rows.values()) {
    const good = opts.good ? row.agents[opts.good] : undefined;
    if (!good || good.planned === 0) continue;
    const goodRate = good.passed / good.planned;
    row.goodRate = goodRate;
    for (const [agent, cell] of Object.entries(row.agents)) {
      if (agent === opts.good) continue;
      (cell.passed / cell.planned < goodRate ? row.caught : row.missed).push(agent);
    }
    if (goodRate < 1) row.status = "breaks the known-good policy";
    else if (row.caught.length === 0) row.status = "does not separate";
    else if (row.missed.length === 0) row.status = "separates";
    else row.status = "partly separates";
  }
  return [...rows.values()];
}

/** A plain-text table: one line per variant, `passed/planned` per agent, and the separation status. */
export function renderSeparation(rows: readonly SeparationRow[], good?: string): string {
  const agents = [...new Set(rows.flatMap((r) => Object.keys(r.agents)))];
  if (good && agents.includes(good)) agents.sort((a, b) => (a === good ? -1 : b === good ? 1 : 0));
  const head = ["variant", ...agents, "separation"];
  const body = rows.map((r) => [
    `${r.label} (${r.variant})`,
    ...agents.map((a) => {
      const c = r.agents[a];
      if (!c) return "";
      const codes = Object.keys(c.violations);
      return `${c.passed}/${c.planned}${codes.length ? ` ${codes.join(",")}` : ""}`;
    }),
    r.status === "partly separates" ? `${r.status} (catches ${r.caught.join(", ")})` : r.status,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  const title = `Passed / planned per variant × agent${good ? ` (known-good: ${good})` : ""}`;
  return [title, line(head), ...body.map(line)].join("\n");
}
