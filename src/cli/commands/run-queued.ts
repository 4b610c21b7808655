import type { Gym } from "../../gym/gym.ts";
import { type QueuedRunResult, runQueuedExperiment as runOnQueue } from "../../queue/coordinator.ts";
import type { ExperimentConfig } from "../../runner/experiment.ts";
import type { Progress } from "../../runner/run.ts";
import type { Store } from "../../store/store.ts";
import { isPostgresUrl } from "../../store/store-url.ts";
import { printJson } from "../context.ts";

/** `proving run --queue URL`: plan and enqueue, then follow the store (or, with --detach, return at once). */
export async function runQueuedExperiment(
  config: ExperimentConfig,
  opts: {
    gym: Gym;
    store: Store;
    flags: { queue?: string; detach?: boolean; store?: string; json?: boolean };
    signal: AbortSignal;
    progress: { update(p: Progress): void };
  },
): Promise<QueuedRunResult> {
  const { flags } = opts;
  const storeUrl = flags.store ?? process.env.PROVING_STORE ?? "";
  if (!isPostgresUrl(storeUrl)) {
    process.stderr.write(
      "proving: warning: --queue with a SQLite store works only when every worker runs on this machine; use --store postgres://... across machines\n",
    );
  }
  const result = await runOnQueue(config, {
    gym: opts.gym,
    store: opts.store,
    queueUrl: flags.queue!,
    detach: Boolean(flags.detach),
    signal: opts.signal,
    onProgress: (p) => opts.progress.update(p),
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
  }
  return result;
}
