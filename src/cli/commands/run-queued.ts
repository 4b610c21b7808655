import { configError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import type { Gym } from "../../gym/gym.ts";
import { type QueuedRunResult, runQueuedExperiment as runOnQueue } from "../../queue/coordinator.ts";
import type { ExperimentConfig } from "../../runner/experiment.ts";
import type { Progress } from "../../runner/progress.ts";
import type { Store } from "../../store/store.ts";
import { isPostgresUrl } from "../../store/store-url.ts";
import { printJson } from "../context.ts";

/** What a user who stopped following an attached queued run (Ctrl-C) is told: the run goes on. */
export function followHint(result: QueuedRunResult, storeUrl: string, queueUrl: string): string {
  const recorded = result.trials.filter((t) => t.outcome !== "missing").length;
  const store = storeUrl ? ` --store ${storeUrl}` : "";
  return [
    `proving: stopped following ${result.experimentId} (${recorded} of ${result.manifest.length} planned trials recorded); the run continues on the workers.`,
    `  follow it:   proving status ${result.experimentId}${store}`,
    `  attach again: proving run <the same arguments> --id ${result.experimentId} --queue ${queueUrl}${store}`,
    `  report:      proving report ${result.experimentId}${store}   (once it is complete)`,
    "",
  ].join("\n");
}

/** `proving run --queue URL`: plan and enqueue, then follow the store (or, with --detach, return at once). */
export async function runQueuedExperiment(
  config: ExperimentConfig,
  opts: {
    gym: Gym;
    store: Store;
    flags: {
      queue?: string;
      detach?: boolean;
      store?: string;
      json?: boolean;
      attempts?: number;
      force?: boolean;
    };
    signal: AbortSignal;
    progress: { update(p: Progress): void; stop?(): void };
  },
): Promise<QueuedRunResult> {
  const { flags } = opts;
  const storeUrl = flags.store ?? process.env.PROVING_STORE ?? "";
  if (!isPostgresUrl(storeUrl)) {
    process.stderr.write(
      "proving: warning: --queue with a SQLite store works only when every worker runs on this machine; use --store postgres://... across machines\n",
    );
  }
  if (flags.attempts !== undefined && flags.attempts < 1)
    throw configError("bad_flag", `--attempts wants 1 or more, got ${flags.attempts}`);
  const result = await runOnQueue(config, {
    run: opts.gym.runOptions(),
    gymDescription: opts.gym.describe() as unknown as JsonObject,
    store: opts.store,
    queueUrl: flags.queue!,
    detach: Boolean(flags.detach),
    signal: opts.signal,
    onProgress: (p) => opts.progress.update(p),
    ...(flags.attempts !== undefined ? { attempts: flags.attempts } : {}),
    ...(flags.force ? { force: true } : {}),
  });
  if (result.detached) {
    const line = `${result.experimentId}: ${result.manifest.length} planned, ${result.enqueued} enqueued; follow with \`proving status ${result.experimentId}\`\n`;
    if (flags.json)
      printJson({
        experiment: { id: result.experimentId },
        planned: result.manifest.length,
        enqueued: result.enqueued,
        detached: true,
      });
    else process.stdout.write(line);
  } else if (result.interrupted) {
    opts.progress.stop?.();
    process.stderr.write(followHint(result, storeUrl, flags.queue!));
  }
  return result;
}
