import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultGym } from "../../src/gym/index.ts";
import { type ExperimentInput, parseExperiment } from "../../src/runner/experiment.ts";
import { type ExperimentResult, runExperiment } from "../../src/runner/run.ts";
import type { Store } from "../../src/store/store.ts";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `proving-report-${prefix}-`));
}

/** Runs device-support with its scripted policies (all of them unless `agents` is given) into `store`. */
export async function runScripted(
  store: Store,
  input: ExperimentInput & { id: string },
  opts: { signal?: AbortSignal; onTrial?: (done: number) => void } = {},
): Promise<ExperimentResult> {
  const registry = defaultGym().registry;
  const agents = Object.keys(registry.world("device-support@1").policies);
  const config = parseExperiment({ worlds: ["device-support@1"], ...input }, agents);
  return runExperiment(config, {
    registry,
    store,
    concurrency: 8,
    now: () => new Date("2026-01-01T00:00:00Z"),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onTrial ? { onTrial: (_r, p) => opts.onTrial?.(p.done) } : {}),
  });
}

/** Decodes one gzip+base64 blob embedded in a report (`<script ... id="ID">`). */
export async function embedded(html: string, id: string): Promise<unknown> {
  const m = new RegExp(
    `<script type="application/octet-stream" data-encoding="gzip\\+base64" id="${id}">([^<]*)</script>`,
  ).exec(html);
  if (!m) throw new Error(`no embedded ${id}`);
  const { gunzipSync } = await import("node:zlib");
  return JSON.parse(gunzipSync(Buffer.from(m[1], "base64")).toString("utf8"));
}

/** The `data-metric` values of a report's headline, read from its HTML. */
export function metrics(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<span data-metric="([^"]+)"(?: data-value="([^"]*)")?>([^<]*)<\/span>/g))
    out[m[1]] = m[2] ?? m[3];
  return out;
}
