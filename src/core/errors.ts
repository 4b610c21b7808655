import { type CodeWithFault, ERROR_CATALOGUE, type ErrorCode, type Fault } from "./error-catalogue.ts";

export type { ErrorCode, Fault } from "./error-catalogue.ts";

export interface ProvingErrorOptions {
  cause?: unknown;
  details?: unknown;
}

/**
 * An error that says what happened (a stable `code` from the error catalogue) and whose fault it is
 * (the catalogue's, never the raiser's choice). Agent mistakes inside a trial are error observations,
 * not ProvingErrors; a ProvingError is for the gym's own failures: bad configuration, a crashed world,
 * a broken agent module, a failed service.
 *
 * `new ProvingError(code, message, {cause, details})`.
 */
export class ProvingError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly fault: Fault;
  readonly details?: unknown;

  constructor(code: C, message: string, options?: ProvingErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProvingError";
    this.code = code;
    this.fault = ERROR_CATALOGUE[code]?.fault ?? "internal";
    this.details = options?.details;
  }
}

/** A ProvingError of a `config` code. */
export const configError = (
  code: CodeWithFault<"config">,
  message: string,
  details?: unknown,
): ProvingError<CodeWithFault<"config">> => new ProvingError(code, message, { details });

/** A ProvingError of an `internal` code. */
export const internalError = (
  code: CodeWithFault<"internal">,
  message: string,
  details?: unknown,
): ProvingError<CodeWithFault<"internal">> => new ProvingError(code, message, { details });

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
