import type { RecordVerification } from "../store/record-verification.ts";

/** Trials named per list before "and N more". */
const SHOWN = 20;

function list(label: string, items: readonly { trialId: string; problem?: string }[]): string[] {
  if (items.length === 0) return [];
  const lines = [`${label} (${items.length}):`];
  for (const item of items.slice(0, SHOWN)) {
    lines.push(`  ${item.trialId}${item.problem ? `: ${item.problem}` : ""}`);
  }
  if (items.length > SHOWN) lines.push(`  … and ${items.length - SHOWN} more`);
  return lines;
}

/** Whether verification failed: changed, removed or inserted records (and, when `strict`, unsigned ones). */
export function verificationFailed(v: RecordVerification, strict = false): boolean {
  return !v.ok || (strict && v.unsigned.length > 0);
}

/** `proving verify`'s terminal text: a verdict line, then every problem by trial. */
export function renderVerification(v: RecordVerification, strict = false): string {
  const failed = verificationFailed(v, strict);
  const head = failed
    ? `TAMPERED: experiment ${v.experimentId}'s records do not verify`
    : v.unsigned.length === v.checked && v.checked > 0
      ? `UNSIGNED: experiment ${v.experimentId}'s ${v.checked} records carry no MAC (written before the store had a key)`
      : `OK: experiment ${v.experimentId}: ${v.valid}/${v.checked} records verify${v.sealed ? ", sealed" : ` (not sealed: ${v.status})`}`;
  const lines = [head];
  for (const problem of v.experiment) lines.push(`experiment: ${problem}`);
  lines.push(...list("changed", v.changed));
  lines.push(...list("removed", v.removed));
  lines.push(...list("inserted", v.inserted));
  lines.push(
    ...list(
      strict ? "unsigned" : "unsigned (not a failure without --strict)",
      v.unsigned.map((trialId) => ({ trialId })),
    ),
  );
  lines.push(
    ...list(
      "recorded after the seal (signed)",
      v.unsealed.map((trialId) => ({ trialId })),
    ),
  );
  if (!v.keyed)
    lines.push("the store has no key: nothing is signed (set PROVING_STORE_KEY for a Postgres store)");
  return lines.join("\n");
}

/** One warning line for `report` and `replay` when verification failed; undefined when it passed. */
export function verificationWarning(v: RecordVerification): string | undefined {
  if (!verificationFailed(v)) return undefined;
  const counts = [
    v.changed.length ? `${new Set(v.changed.map((c) => c.trialId)).size} changed` : "",
    v.removed.length ? `${v.removed.length} removed` : "",
    v.inserted.length ? `${v.inserted.length} inserted` : "",
    ...v.experiment,
  ].filter(Boolean);
  return `experiment ${v.experimentId}'s records were tampered with (${counts.join(", ")}); see \`proving verify ${v.experimentId}\``;
}
