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

/**
 * `VirtualDate`, the one clock of an isolate prelude: `Date` (called, constructed with no argument,
 * `Date.now()`, subclassed) and `Intl.DateTimeFormat` formatting "now" all read `nowExpr`, the
 * prelude's virtual time. The native `Date` stays unreachable: `VirtualDate` is a plain function whose
 * prototype chain leads to `Function.prototype` (a `class extends Date` would lead back to the native
 * one, whose `now()` is the host's wall clock), `Date.prototype.constructor` is `VirtualDate`, and the
 * native `Date.now` reads the virtual clock too. The caller assigns `globalThis.Date = VirtualDate`
 * and freezes `VirtualDate` and `VirtualDate.prototype`.
 */
export function virtualClockSource(nowExpr: string): string {
  return `  const NativeDate = Date;
  const clockNow = () => ${nowExpr};
  const construct = Reflect.construct;
  const VirtualDate = function Date(...args) {
    if (new.target === undefined) return new NativeDate(clockNow()).toString();
    return construct(NativeDate, args.length === 0 ? [clockNow()] : args, new.target);
  };
  VirtualDate.prototype = NativeDate.prototype;
  Object.defineProperty(NativeDate.prototype, "constructor", { value: VirtualDate, writable: false, configurable: false });
  const virtualNow = function now() {
    return clockNow();
  };
  Object.defineProperty(VirtualDate, "now", { value: virtualNow, writable: false, configurable: false });
  Object.defineProperty(NativeDate, "now", { value: virtualNow, writable: false, configurable: false });
  VirtualDate.UTC = NativeDate.UTC;
  VirtualDate.parse = NativeDate.parse;
  if (typeof Intl === "object" && Intl !== null && typeof Intl.DateTimeFormat === "function") {
    const dtf = Intl.DateTimeFormat.prototype;
    const formatOf = Object.getOwnPropertyDescriptor(dtf, "format").get;
    Object.defineProperty(dtf, "format", {
      get() {
        const format = formatOf.call(this);
        return (date) => format(date === undefined ? clockNow() : date);
      },
      configurable: false,
    });
    const formatToParts = dtf.formatToParts;
    Object.defineProperty(dtf, "formatToParts", {
      value: function formatToParts_(date) {
        return formatToParts.call(this, date === undefined ? clockNow() : date);
      },
      writable: false,
      configurable: false,
    });
    Object.freeze(dtf);
  }`;
}
