import type { JsonObject } from "./json.ts";

/** One write attempt on the world, committed or refused, with whether it was authorised at that moment. */
export interface Effect {
  seq: number;
  /** Virtual time of the attempt. */
  t: number;
  /** Index of the world trace entry (tool call) that made it. */
  step: number;
  tool: string;
  args: JsonObject;
  idempotencyKey?: string;
  authorized: boolean;
  committed: boolean;
  /** Why it did not commit, or what it committed (`committed`, `replayed`, `approval_required`, ...). */
  outcome: string;
  /** Id of what was written (e.g. a request id). */
  ref?: string;
}

/** The append-only log of every write attempt; the verifier reads it, never the agent's words. */
export class EffectLog {
  private readonly entries: Effect[];

  constructor(entries: Effect[] = []) {
    this.entries = entries.map((e) => ({ ...e }));
  }

  append(effect: Omit<Effect, "seq">): Effect {
    const full: Effect = { seq: this.entries.length + 1, ...effect };
    this.entries.push(full);
    return full;
  }

  all(): readonly Effect[] {
    return this.entries;
  }

  committed(): Effect[] {
    return this.entries.filter((e) => e.committed);
  }

  saveState(): Effect[] {
    return this.entries.map((e) => ({ ...e }));
  }
}
