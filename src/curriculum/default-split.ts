import type { WorldDefinition } from "../core/registry.ts";
import type { SplitFile } from "./split-file.ts";

/**
 * The split a curriculum run uses when no split file is given: the dynamic split is every family ×
 * difficulty of the worlds; the regression split is each family at its middle difficulty, seeds 1 and 2
 * (version 1); nothing is held out. Derived from the world definitions only, so it is the same in every run.
 */
export function defaultSplit(worlds: readonly WorldDefinition[]): SplitFile {
  return {
    schemaVersion: 1,
    name: `default:${worlds.map((w) => w.id).join("+")}`,
    regression: {
      version: 1,
      tasks: worlds.flatMap((w) =>
        w.families.map((f) => ({
          world: w.id,
          family: f.name,
          difficulty: f.difficulties[Math.floor((f.difficulties.length - 1) / 2)],
          seeds: [1, 2],
        })),
      ),
    },
    dynamic: { worlds: worlds.map((w) => w.id) },
    heldout: { families: [], variants: [], seeds: [1], tasks: [] },
  };
}
