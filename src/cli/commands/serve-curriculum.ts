/**
 * `proving serve --curriculum [SPLITS]`: the served curriculum, opened on the store the server records
 * in (its curriculum tables), loaded only when the flag is given.
 */
import type { JsonValue } from "../../core/json.ts";
import {
  DEFAULT_STRATEGY,
  defaultSplit,
  openCurriculumStore,
  ServedCurriculum,
  type SplitFile,
} from "../../curriculum/index.ts";
import type { Gym } from "../../gym/gym.ts";
import type { ServeTarget } from "../../serve/target.ts";
import type { Store } from "../../store/store.ts";
import { readSplitFlag } from "./split-flag.ts";

export interface ServeCurriculumFlags {
  /** A split file, or `true` for the served world's default split. */
  curriculum: string | true;
  strategy?: string;
  curriculumId?: string;
  maxSteps: number;
}

/**
 * The split of a served curriculum: the file's, or the served world's default split (every family ×
 * difficulty; for a harnessed variant, the variant's keys).
 */
function servedSplit(target: ServeTarget, file: string | true): SplitFile {
  if (file !== true) return readSplitFlag(file);
  const split = defaultSplit([target.world]);
  if (target.variant === undefined) return split;
  return {
    ...split,
    name: `default:${target.id}`,
    dynamic: { worlds: [], variants: [target.variant as JsonValue] },
  };
}

/**
 * Opens the curriculum `--curriculum-id` names (default `serve-<target>-<strategy>`) in the store at
 * `where` — continued when it is stored, new otherwise — runs `fn` with it, then finishes its writes
 * and closes its tables.
 */
export async function withServedCurriculum(
  gym: Gym,
  target: ServeTarget,
  where: string,
  flags: ServeCurriculumFlags,
  fn: (curriculum: ServedCurriculum) => Promise<void>,
): Promise<void> {
  const history = await openCurriculumStore(where);
  try {
    const strategy = flags.strategy ?? DEFAULT_STRATEGY;
    const curriculum = await ServedCurriculum.open({
      gym,
      history,
      id: flags.curriculumId ?? `serve-${target.id}-${strategy}`,
      split: servedSplit(target, flags.curriculum),
      served: { world: target.world.id, ...(target.variant !== undefined ? { variant: target.id } : {}) },
      strategy,
      maxSteps: flags.maxSteps,
    });
    try {
      await fn(curriculum);
    } finally {
      await curriculum.close();
    }
  } finally {
    await history.close();
  }
}

/**
 * The experiment a curriculum's HTML report is built on: the run's own (`curriculum run` records its
 * episodes as experiment `ID`), or, for a served run (its episodes are trials of the servers'
 * `serve-<stamp>` experiments), the experiment of its latest episode.
 */
export async function reportExperimentOf(
  store: Store,
  run: { id: string; episodes: readonly { trial: string }[] },
): Promise<string> {
  if (await store.getExperiment(run.id)) return run.id;
  const last = run.episodes[run.episodes.length - 1];
  const trial = last ? await store.getTrial(last.trial) : undefined;
  return trial?.spec.experimentId ?? run.id;
}
