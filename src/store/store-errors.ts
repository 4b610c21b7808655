import { errorMessage, ProvingError } from "../core/errors.ts";

/**
 * Turns whatever a database call threw into a ProvingError blamed on the infrastructure.
 * ProvingErrors (unknown experiment, conflicting manifest...) pass through unchanged.
 * SQLite's "database is locked" family gets its own code, `store_busy`, so callers may retry.
 */
export function toStoreError(operation: string, err: unknown): ProvingError {
  if (err instanceof ProvingError) return err;
  const driverCode = (err as { code?: unknown } | null)?.code;
  const busy = typeof driverCode === "string" && driverCode.startsWith("SQLITE_BUSY");
  return new ProvingError(
    busy ? "store_busy" : "store_failed",
    `store: ${operation} failed: ${errorMessage(err)}`,
    {
      cause: err,
      details: typeof driverCode === "string" ? { driverCode } : undefined,
    },
  );
}

export const unknownExperiment = (experimentId: string): ProvingError =>
  new ProvingError("unknown_experiment", `no experiment with id "${experimentId}" in the store`, {
    details: { experimentId },
  });
