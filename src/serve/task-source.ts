/**
 * Where a reset that does not choose its task gets one: the port a curriculum plugs into
 * (`proving serve --curriculum`; `src/curriculum/serve-task-source.ts` implements it). Serving sits
 * below the curriculum and knows only this: a draw per reset (or one per group, shared by its
 * members), and, per drawn episode, either its trial record once it ended (the source learns from
 * it, or counts an infrastructure outcome apart) or word that it never will (abandoned).
 */
import type { TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { type ResetParams, ServeError } from "./protocol.ts";

/** The task a source handed to one session's episode, and how that episode reports back. */
export interface SourcedTask {
  family: string;
  difficulty: number;
  seed: number;
  /** What the reset's reply names under `metadata.curriculum` (`{snapshot_id, key}`). */
  metadata: JsonObject;
  /** The episode ended and its trial record is written: the source learns from it. Called at most once. */
  finished(record: TrialRecord): void;
  /**
   * The episode will have no record: closed or reclaimed before its end, replaced by another reset,
   * its reset or its plan failed. The source does not learn from it. Called at most once.
   */
  abandoned(reason: string): void;
}

/** A source of tasks for resets that leave the task to the server. */
export interface TaskSource {
  /**
   * The task of a reset: a `SourcedTask` when the reset left it to the source (no seed, family or
   * difficulty), `undefined` when the reset chose its task (it is played as sent and not reported).
   * Throws a `ServeError` for a reset the source refuses (e.g. a held-out family asked for by name).
   */
  draw(params: ResetParams): SourcedTask | undefined;
  /**
   * One task for the `size` members of a group (GRPO: the identical task and seed): one handle per
   * member, each settled on its own; the source judges the group once every member has settled.
   * `undefined` when the reset chose its task.
   */
  drawGroup(params: ResetParams, groupId: string, size: number): SourcedTask[] | undefined;
  /** The distribution and its bookkeeping, as `GET /curriculum` answers it. */
  describe(): JsonObject;
}

/**
 * The sourced task of a reset: the source's draw, `undefined` when the reset chose its task or the
 * server has no source. `split` asks a source for a task: without one it is a `VALIDATION_ERROR`.
 */
export function drawTask(source: TaskSource | undefined, params: ResetParams): SourcedTask | undefined {
  if (source) return source.draw(params);
  if (params.split !== undefined) {
    throw new ServeError(
      "VALIDATION_ERROR",
      "reset.split: this server serves no curriculum (start it with --curriculum)",
    );
  }
  return undefined;
}
