/**
 * Fixtures shared by the curriculum CLI tests: the CLI entry, a split file, the shape of
 * `curriculum run --json`, and the views of a run that a resume (or another dialect) must reproduce.
 */
import { fileURLToPath } from "node:url";

export const CLI_BIN = fileURLToPath(new URL("../../bin/proving.mjs", import.meta.url));

/** Two regression tasks of device-support@1, four dynamic families at d1–2, `unverifiable` held out at d2. */
export function splitYaml(name: string): string {
  return `name: ${name}
regression:
  version: 1
  tasks:
    - { world: device-support@1, family: lost-reply, difficulty: 2, seeds: [1, 2] }
    - { world: device-support@1, family: denied, difficulty: 1, seed: 3 }
dynamic:
  worlds: [device-support@1]
  families: [approved-replacement, needs-approval, denied, lost-reply]
  difficulties: [1, 2]
heldout:
  families: [unverifiable]
  difficulties: [2]
`;
}

export interface EpisodeView {
  index: number;
  family: string;
  difficulty: number;
  split: string;
  seed: number;
  outcome: string;
}

/** What `proving curriculum run|show --json` prints (the parts the tests read). */
export interface CurriculumRunJson {
  id: string;
  strategy: string;
  manifest_hash: string;
  episodes: (EpisodeView & { world: string; passed: boolean })[];
  regression: { after_episode: number; planned: number; passed: number; manifest_hash: string }[];
  heldout: { after_episode: number; planned: number; passed: number }[];
  snapshot: { sampler: { strategy: string } };
  ran_now?: number;
}

/** The episodes as a resumed run must repeat them (no timings, no ids of the moment). */
export const episodeView = (episodes: readonly EpisodeView[]): EpisodeView[] =>
  episodes.map(({ index, family, difficulty, split, seed, outcome }) => ({
    index,
    family,
    difficulty,
    split,
    seed,
    outcome,
  }));

/** The regression evaluations as a resumed run must repeat them. */
export const regressionView = (r: CurriculumRunJson) =>
  r.regression.map(({ after_episode, planned, passed, manifest_hash }) => ({
    after_episode,
    planned,
    passed,
    manifest_hash,
  }));
