/**
 * Generic vega-lite specs for the report's training sections: lines with an interval band per series
 * (learning curves over episodes, mean and 95% band), and stacked shares per window (what a curriculum
 * sampled over time). Render them with `renderSvg` (charts.ts).
 */

/** One point of a banded series: its x, the estimate and its interval. */
export interface BandPoint {
  series: string;
  x: number;
  y: number;
  lo: number;
  hi: number;
}

/** Lines (one per series) with their interval as a translucent band; y is a rate in [0, 1]. */
export function bandChart(
  points: readonly BandPoint[],
  opts: { title: string; x?: string; y?: string; width?: number; height?: number },
): Record<string, unknown> | undefined {
  if (!points.length) return undefined;
  const color = { field: "series", type: "nominal", title: null };
  return {
    title: opts.title,
    width: opts.width ?? 320,
    height: opts.height ?? 180,
    data: { values: points.map((p) => ({ ...p })) },
    encoding: {
      x: { field: "x", type: "quantitative", title: opts.x ?? "episodes" },
    },
    layer: [
      {
        mark: { type: "area", opacity: 0.2 },
        encoding: {
          y: {
            field: "lo",
            type: "quantitative",
            title: opts.y ?? "pass rate",
            scale: { domain: [0, 1] },
            axis: { format: ".0%" },
          },
          y2: { field: "hi" },
          color,
        },
      },
      {
        mark: { type: "line", point: true },
        encoding: { y: { field: "y", type: "quantitative" }, color },
      },
    ],
  };
}

/** One window's share of each name (sums to 1 over the names). */
export interface ShareBar {
  from: number;
  to: number;
  share: Record<string, number>;
}

/** Stacked bars: each window's share per name (a family, a difficulty), x at the window's middle. */
export function shareChart(
  windows: readonly ShareBar[],
  opts: { title: string; legend?: string; width?: number; height?: number },
): Record<string, unknown> | undefined {
  const values = windows.flatMap((w) =>
    Object.entries(w.share).map(([name, share]) => ({
      window: `${w.from}-${w.to}`,
      mid: (w.from + w.to) / 2,
      name,
      share,
    })),
  );
  if (!values.length) return undefined;
  return {
    title: opts.title,
    width: opts.width ?? 320,
    height: opts.height ?? 180,
    data: { values },
    mark: { type: "bar" },
    encoding: {
      x: {
        field: "window",
        type: "ordinal",
        sort: { field: "mid" },
        title: "episodes",
        axis: { labelAngle: -45 },
      },
      y: {
        field: "share",
        type: "quantitative",
        stack: "normalize",
        title: "share of episodes",
        axis: { format: ".0%" },
      },
      color: { field: "name", type: "nominal", title: opts.legend ?? null },
      tooltip: [{ field: "window", title: "episodes" }, { field: "name" }, { field: "share", format: ".0%" }],
    },
  };
}
