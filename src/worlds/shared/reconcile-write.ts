import type { AgentAction, ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { callWithRetry, isOk } from "./script-policy.ts";

/** An idempotent write a scripted policy could not confirm, and how to look for it by its key. */
export interface UnconfirmedWrite {
  /** The idempotency key the write was sent with. */
  key: string;
  /** Sends the write again with a key. */
  write(key: string): Generator<AgentAction, ToolResult, ToolResult>;
  /** The tool that lists writes by `idempotency_key`, and the list in its answer. */
  find: { tool: string; list: string };
  /** The id field of a listed write and of the write's own answer (e.g. `request_id`). */
  id: string;
  /** The flaw: retry under a fresh key `<key>-<n>` each round instead of looking and reusing the key. */
  newKeys: boolean;
}

/**
 * Reconciles a write whose answer was a retryable error (the reply may be lost, or it never
 * committed): up to 6 rounds, each looking for the write by its key, then sending it again with the
 * same key (safe: idempotent); a wait of 15 s, 30 s, ... (at most 600 s) after each failed round; a
 * non-retryable answer ends it. Returns the id of the confirmed write, or none, with every key tried.
 */
export function* reconcileWrite(
  w: UnconfirmedWrite,
): Generator<AgentAction, { id?: string; keys: string[] }, ToolResult> {
  const keys = [w.key];
  for (let attempt = 1, pause = 15; attempt <= 6; attempt++, pause = Math.min(pause * 2, 600)) {
    if (w.newKeys) {
      const fresh = `${w.key}-${attempt + 1}`;
      keys.push(fresh);
      const again = yield* w.write(fresh);
      if (isOk(again)) return { id: String(again[w.id]), keys };
    } else {
      const found = yield* callWithRetry(w.find.tool, { idempotency_key: w.key }, 1);
      const rows = isOk(found) ? (found[w.find.list] as JsonObject[]) : [];
      if (rows.length > 0) return { id: String(rows[0][w.id]), keys };
      const again = yield* w.write(w.key);
      if (isOk(again)) return { id: String(again[w.id]), keys };
      if (!again.error.retryable) break;
    }
    yield { tool: "wait", args: { seconds: pause } };
  }
  return { keys };
}
