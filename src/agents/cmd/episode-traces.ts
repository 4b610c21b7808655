import fs from "node:fs";
import { TrialEnd } from "../../core/trial-end.ts";
import { type EpisodeMark, episodeProcesses, killPids } from "./sandbox.ts";

/** How many ended episodes of one agent are watched for leftovers (the recent ones: a run's neighbours). */
const WATCHED = 256;

const names = (marks: readonly EpisodeMark[]) => {
  const ids = [...new Set(marks.map((m) => m.episodeId))];
  return ids.slice(0, 3).join(", ") + (ids.length > 3 ? `, … (${ids.length} episodes)` : "");
};

/**
 * The agent side of the clean-start check, for one `cmd:`/`cmd-jsonl:` agent: what its ended episodes
 * left that a new episode could see. Each program's private directory and processes are removed when
 * its trial ends; before the next program starts, this looks again: its own directory must be empty,
 * no earlier episode's directory may be there, and no process of an earlier episode (by the episode id
 * in its environment, or its working directory) may still run. Whatever is found is removed or killed,
 * and the new trial ends as `contaminated` (its start is not clean: it could have read or talked to
 * what was left). One per agent, held by the agent (no module state).
 */
export class EpisodeTraces {
  readonly #ended: EpisodeMark[] = [];

  /** An episode's program was cleaned up: watch for what it may have left. */
  ended(mark: EpisodeMark): void {
    this.#ended.push(mark);
    if (this.#ended.length > WATCHED) this.#ended.shift();
  }

  /** Why a start in `dir` is not clean (after removing what was found), or `undefined`. */
  startProblem(dir: string): string | undefined {
    const problems: string[] = [];
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(dir);
    } catch {
      entries = [];
    }
    if (entries.length > 0)
      problems.push(
        `its private working directory is not empty at start (${entries.slice(0, 3).join(", ")})`,
      );
    const dirs = this.#ended.filter((m) => m.dir !== undefined && fs.existsSync(m.dir));
    if (dirs.length > 0) {
      problems.push(`the private directory of earlier episode(s) ${names(dirs)} is still there`);
      for (const m of dirs) fs.rmSync(m.dir!, { recursive: true, force: true });
    }
    const pids = episodeProcesses(this.#ended);
    if (pids.length > 0) {
      killPids(pids);
      problems.push(`${pids.length} process(es) of an earlier episode still running`);
    }
    return problems.length > 0 ? `not a clean start for the agent: ${problems.join("; ")}` : undefined;
  }

  /** Throws the `contaminated` end of a start in `dir` that is not clean. */
  assertCleanStart(dir: string): void {
    const problem = this.startProblem(dir);
    if (problem !== undefined) throw new TrialEnd("contaminated", problem);
  }
}
