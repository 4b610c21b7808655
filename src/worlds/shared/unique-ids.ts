import type { Rng } from "../../core/rng.ts";

/** `n` in decimal, zero-padded to `width` digits. */
export const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/**
 * A maker of ids `PREFIX-<digits>` drawn from `rng`, never one already in `used` (which it fills):
 * `id("C", 5)` gives e.g. `C-01234`.
 */
export function uniqueIds(rng: Rng, used = new Set<string>()): (prefix: string, digits: number) => string {
  return (prefix, digits) => {
    for (;;) {
      const id = `${prefix}-${pad(rng.int(0, 10 ** digits - 1), digits)}`;
      if (!used.has(id)) {
        used.add(id);
        return id;
      }
    }
  };
}
