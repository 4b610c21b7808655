import type { Inspection } from "../core/contracts.ts";

/** The environment's state hash, or `undefined` when hashing it throws (the state cannot be compared). */
export function safeStateHash(env: Inspection): string | undefined {
  try {
    return env.stateHash();
  } catch {
    return undefined;
  }
}
