import { isDeepStrictEqual } from "node:util";
import { errorMessage } from "../core/errors.ts";

/** Failures kept per check; past it only the count grows. */
const MAX_FAILURES = 20;

/** Ends the current scope of a check after a failure that makes the rest of it meaningless. */
class ScopeAborted extends Error {}

/** A short rendering of a value for a failure message (long ones are cut). */
function brief(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/**
 * Failures found at one place of a check (a cell, a tool, a cut), each message prefixed with where.
 * `expect`/`equal` record a failure and go on; `must` records one and ends the scope.
 */
export class Scope {
  constructor(
    private readonly run: CheckRun,
    readonly where: string,
  ) {}

  fail(message: string): void {
    this.run.record(this.where ? `${this.where}: ${message}` : message);
  }

  /** Records `message` unless `ok`; returns `ok`. */
  expect(ok: boolean, message: string | (() => string)): boolean {
    if (!ok) this.fail(typeof message === "string" ? message : message());
    return ok;
  }

  /** Deep equality (JSON data, order of keys included as `isDeepStrictEqual` sees it). */
  equal(actual: unknown, expected: unknown, message: string): boolean {
    if (isDeepStrictEqual(actual, expected)) return true;
    this.fail(`${message} (got ${brief(actual)}, expected ${brief(expected)})`);
    return false;
  }

  /** Two step sequences (digests) are the same; else says from which step they part. */
  sameSteps(actual: readonly string[], expected: readonly string[], message: string): boolean {
    let i = 0;
    while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
    if (i === actual.length && i === expected.length) return true;
    this.fail(`${message} (from step ${i}; ${actual.length} steps vs ${expected.length})`);
    return false;
  }

  /** Like `expect`, but a failure ends this scope (the rest of it would only repeat the failure). */
  must(ok: boolean, message: string | (() => string)): asserts ok {
    if (!this.expect(ok, message)) throw new ScopeAborted();
  }

  /** Runs `body` in a nested scope. */
  at(where: string, body: (s: Scope) => Promise<void>): Promise<void> {
    return this.run.scope(this.where ? `${this.where} ${where}` : where, body);
  }
}

/** Collects the failures of one check; a world that throws fails the scope it threw in, not the checker. */
export class CheckRun {
  readonly failures: string[] = [];
  /** Failures past MAX_FAILURES, counted only. */
  dropped = 0;
  /** What the check covered (the details of a passed check). */
  readonly covered: string[] = [];

  record(message: string): void {
    if (this.failures.length < MAX_FAILURES) this.failures.push(message);
    else this.dropped++;
  }

  note(detail: string): void {
    this.covered.push(detail);
  }

  /** Runs `body`; anything it throws is a failure of this scope, and the check goes on after it. */
  async scope(where: string, body: (s: Scope) => Promise<void>): Promise<void> {
    const s = new Scope(this, where);
    try {
      await body(s);
    } catch (err) {
      if (!(err instanceof ScopeAborted)) s.fail(`threw ${errorMessage(err)}`);
    }
  }

  get failed(): boolean {
    return this.failures.length > 0;
  }

  /** The failures as report details (with the count of those left out). */
  details(): string[] {
    return this.dropped > 0 ? [...this.failures, `... and ${this.dropped} more`] : [...this.failures];
  }
}
