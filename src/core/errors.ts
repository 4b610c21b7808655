/** Who is at fault when something goes wrong. */
export type Fault = "config" | "agent" | "world" | "infrastructure" | "internal";

/**
 * An error that says what happened (a stable `code`) and whose fault it is.
 * Agent mistakes inside a trial are error observations, not ProvingErrors; a ProvingError
 * is for the gym's own failures: bad configuration, a crashed world, a broken agent module.
 */
export class ProvingError extends Error {
  readonly code: string;
  readonly fault: Fault;
  readonly details?: unknown;

  constructor(code: string, fault: Fault, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProvingError";
    this.code = code;
    this.fault = fault;
    this.details = options?.details;
  }
}

export const configError = (code: string, message: string, details?: unknown): ProvingError =>
  new ProvingError(code, "config", message, { details });

export const internalError = (code: string, message: string, details?: unknown): ProvingError =>
  new ProvingError(code, "internal", message, { details });

/** Reads the message of anything thrown, without assuming it is an Error. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
