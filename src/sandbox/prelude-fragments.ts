/**
 * Fragments of the JavaScript that isolate preludes share (the sandbox's harness, the rigger's
 * generated rules): plain strings spliced into their `String.raw` sources (no backslashes in them), two-space indented for
 * the body of the prelude's IIFE.
 */

/** `Math.random` replaced by a seeded generator (mulberry32, fixed seed): the same run draws the same numbers. */
export const SEEDED_RANDOM_SOURCE = `  let seed = 0x2545f491;
  Math.random = function random() {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };`;

/** `const text = (e) => ...`: an error's message (or the value as a string) cut to `max` characters, never throwing. */
export function errorTextSource(max: number): string {
  return `  const text = (e) => {
    try {
      if (e && typeof e === "object" && typeof e.message === "string") return String(e.message).slice(0, ${max});
      return String(e).slice(0, ${max});
    } catch (_) {
      return "an error that cannot be shown";
    }
  };`;
}
