import type { LayerSpec } from "../harness/variant.ts";
import type { LayersProposal } from "./types.ts";

/** Where a bisection of one knob stands: the interval still open and the values tried. */
export interface KnobSearch {
  lo: number;
  hi: number;
  tried: number[];
}

/** The knob's current value in a proposal's layers. */
export function knobValue(p: LayersProposal): number | undefined {
  if (!p.knob) return undefined;
  const v = p.layers[p.knob.layer]?.params[p.knob.param];
  return typeof v === "number" ? v : undefined;
}

export function startSearch(p: LayersProposal): KnobSearch | undefined {
  const v = knobValue(p);
  if (!p.knob || v === undefined) return undefined;
  return { lo: p.knob.min, hi: p.knob.max, tried: [v] };
}

/**
 * One bisection step of a fault's intensity: the pass rate falls as the knob rises, so a rate above the
 * band moves the knob up (between the current value and the top of the open interval), below the band
 * moves it down. Returns the next proposal and search state, or undefined when the interval is spent
 * (an integer knob with no untried value between its bounds).
 */
export function refineKnob(
  p: LayersProposal,
  search: KnobSearch,
  direction: "harder" | "easier",
): { proposal: LayersProposal; search: KnobSearch; value: number } | undefined {
  const knob = p.knob;
  const v = knobValue(p);
  if (!knob || v === undefined) return undefined;
  const lo = direction === "harder" ? v : search.lo;
  const hi = direction === "harder" ? search.hi : v;
  let next = (lo + hi) / 2;
  if (knob.integer) next = direction === "harder" ? Math.ceil(next) : Math.floor(next);
  else next = Math.round(next * 1000) / 1000;
  if (next === v || next < knob.min || next > knob.max || search.tried.includes(next)) return undefined;
  const layers: LayerSpec[] = p.layers.map((l, i) =>
    i === knob.layer ? { id: l.id, params: { ...l.params, [knob.param]: next } } : l,
  );
  return {
    proposal: { ...p, layers },
    search: { lo, hi, tried: [...search.tried, next] },
    value: next,
  };
}
