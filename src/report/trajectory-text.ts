import pc from "picocolors";
import type { TrialRecord } from "../core/contracts.ts";

const short = (v: unknown, max = 160) => {
  const s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** A trial's trajectory step by step, for the terminal (`proving show`). */
export function renderTrajectory(record: TrialRecord, opts: { color?: boolean } = {}): string {
  const c = (opts.color ?? Boolean(process.stdout.isTTY)) ? pc : pc.createColors(false);
  const s = record.spec;
  const lines: string[] = [];
  lines.push(c.bold(`Trial ${s.id}`) + `  ${record.outcome}${record.reason ? ` — ${record.reason}` : ""}`);
  lines.push(
    `  experiment ${s.experimentId}  world ${s.world}${s.variantId ? ` (variant ${s.variantId})` : ""}  family ${s.family}  difficulty ${s.difficulty}  seed ${s.seed}  agent ${s.agent.id}`,
  );
  lines.push(`  task ${record.task.id}`);
  if (record.task.instruction) lines.push(c.dim(`  ${record.task.instruction}`));
  lines.push("");
  const violationsAt = new Map<number, string[]>();
  for (const v of record.verdict?.violations ?? [])
    violationsAt.set(v.step, [...(violationsAt.get(v.step) ?? []), v.code]);
  for (const step of record.steps) {
    const r = step.observation.kind === "tool_result" ? step.observation.result : undefined;
    const mark = r === undefined ? "" : r.ok ? c.green("ok") : c.red(`${r.error.code}`);
    const tags = [step.setup ? "setup" : "", ...(step.layers ?? [])].filter(Boolean);
    lines.push(
      `${String(step.index).padStart(3)}  t=${String(step.t).padStart(5)}s  ${c.bold(step.action.tool)}(${short(step.action.args, 120)})  → ${mark}${tags.length ? c.dim(`  [${tags.join(", ")}]`) : ""}`,
    );
    if (r) lines.push(c.dim(`        ${short(r, 200)}`));
    const codes = violationsAt.get(step.index);
    if (codes) lines.push(c.red(`        ⚠ ${codes.join(", ")}`));
  }
  if (record.verdict) {
    const v = record.verdict;
    lines.push(
      "",
      c.bold(
        `Verdict (${v.verifier}): ${v.passed ? c.green("passed") : c.red("not passed")}, score ${v.score.toFixed(2)}`,
      ),
    );
    for (const ch of v.checks)
      lines.push(`  ${ch.passed ? c.green("✓") : c.red("✗")} ${ch.name}: ${ch.detail}`);
    for (const x of v.violations) lines.push(c.red(`  ⚠ ${x.code} at step ${x.step}: ${x.detail}`));
  }
  return lines.join("\n");
}
