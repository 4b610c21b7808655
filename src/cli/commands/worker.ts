import type { Command } from "commander";
import { intOption, storeKeyFromEnv, storePath } from "../context.ts";

interface WorkerFlags {
  queue: string;
  store?: string;
  concurrency?: number;
  name?: string;
  lockMs?: number;
  reconcileMs?: number;
  drainMs?: number;
  quiet?: boolean;
  llmRpm?: number;
  llmTpm?: number;
  llmWindowMs?: number;
  llmAuditKey?: string;
  attempts?: number;
  trialMemoryMb?: number;
}

/**
 * `proving worker --queue URL --store URL`: runs queued trials on this machine until SIGTERM/SIGINT,
 * then drains (stops fetching, finishes in-flight trials, exits 0 within --drain-ms).
 */
export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description("run queued trials (from `proving run --queue`) on this machine until SIGTERM, then drain")
    .requiredOption("--queue <url>", "the Redis queue, redis://HOST:PORT/DB")
    .option("--store <url>", "the shared store, postgres://... (default $PROVING_STORE)")
    .option(
      "--concurrency <n>",
      "trials at once, each in its own process (default 1)",
      intOption("--concurrency"),
    )
    .option("--name <name>", "this worker's name in the attempts table (default host:pid)")
    .option(
      "--lock-ms <n>",
      "job lock; a worker silent this long loses its trial to another (default 30000)",
      intOption("--lock-ms"),
    )
    .option(
      "--reconcile-ms <n>",
      "re-enqueue unrecorded trials this often, 0 = never (default 30000)",
      intOption("--reconcile-ms"),
    )
    .option(
      "--drain-ms <n>",
      "on SIGTERM, wait this long for in-flight trials (default 60000)",
      intOption("--drain-ms"),
    )
    .option(
      "--llm-rpm <n>",
      "global requests per minute per LLM endpoint, shared by all workers through Redis",
      intOption("--llm-rpm"),
    )
    .option(
      "--llm-tpm <n>",
      "global tokens per minute per LLM endpoint, shared by all workers through Redis",
      intOption("--llm-tpm"),
    )
    .option(
      "--llm-window-ms <n>",
      "the window of --llm-rpm/--llm-tpm in ms (default 60000: per minute)",
      intOption("--llm-window-ms"),
    )
    .option(
      "--llm-audit-key <key>",
      "append every admitted LLM request (`endpoint redis-ms`) to this Redis list, to audit the global limit",
    )
    .option(
      "--attempts <n>",
      "attempts of the trials this worker's reconciler re-enqueues (after a lost queue; default 3); `run --queue --attempts` sets the rest",
      intOption("--attempts"),
    )
    .option(
      "--trial-memory-mb <n>",
      "heap limit of each trial process; a trial past it fails its attempt (default: node's)",
      intOption("--trial-memory-mb"),
    )
    .option("--quiet", "no per-trial log lines on stderr")
    .action(async (flags: WorkerFlags) => {
      const { startTrialWorker } = await import("../../queue/trial-worker.ts");
      const { QUEUE_TRIAL_PROCESS } = await import("../../gym/queue-trial-process.ts");
      const { openStore } = await import("../../store/open-store.ts");
      const storeUrl = storePath(flags.store);
      const store = await openStore(storeUrl, { maxConnections: 2, ...(await storeKeyFromEnv()) });
      const log = (line: string) => {
        if (!flags.quiet) process.stderr.write(`proving worker: ${line}\n`);
      };
      const worker = await startTrialWorker({
        queueUrl: flags.queue,
        processor: QUEUE_TRIAL_PROCESS,
        storeUrl,
        store,
        env: process.env,
        cwd: process.cwd(),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(flags.name !== undefined ? { name: flags.name } : {}),
        ...(flags.lockMs !== undefined ? { lockMs: flags.lockMs } : {}),
        ...(flags.reconcileMs !== undefined ? { reconcileMs: flags.reconcileMs } : {}),
        ...(flags.attempts !== undefined ? { attempts: flags.attempts } : {}),
        ...(flags.trialMemoryMb !== undefined ? { trialMemoryMb: flags.trialMemoryMb } : {}),
        ...(flags.llmRpm || flags.llmTpm
          ? {
              llmLimit: {
                requestsPerWindow: flags.llmRpm ?? 0,
                tokensPerWindow: flags.llmTpm ?? 0,
                ...(flags.llmWindowMs !== undefined ? { windowMs: flags.llmWindowMs } : {}),
                ...(flags.llmAuditKey !== undefined ? { auditKey: flags.llmAuditKey } : {}),
              },
            }
          : {}),
        onEvent: (e) => {
          if (e.kind === "completed") log(`${e.trialId} ${JSON.stringify(e.result)}`);
          else if (e.kind === "failed")
            log(`${e.trialId} attempt ${e.attempt} failed${e.final ? " (final)" : ""}: ${e.error}`);
          else if (e.kind === "poison")
            log(`${e.trialId} recorded as infra_error${e.recorded ? "" : " (already recorded)"}`);
          else log(`error: ${e.error}`);
        },
      });
      log(`${worker.name} ready`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGTERM", stop);
        process.once("SIGINT", stop);
      });
      log("draining");
      const { drained } = await worker.drain(flags.drainMs ?? 60_000);
      await store.close().catch(() => undefined);
      log(drained ? "drained" : "drain deadline passed; unfinished trials will be redelivered");
      process.exit(drained ? 0 : 1);
    });
}
