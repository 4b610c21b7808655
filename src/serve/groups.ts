/**
 * Groups of sessions on one task (GRPO, RLOO): a group reset opens N sessions on the identical task
 * and seed; `GET /group` (WS `group`) answers how its members ended. A group is kept after its
 * members close, for the results; the registry keeps the newest `capacity` groups.
 */
import { randomUUID } from "node:crypto";
import type { Task } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { Episode } from "./episode.ts";

/** A member as `GET /group` reports it. */
export interface GroupMemberDoc {
  episode_id: string;
  done: boolean;
  /** The episode's outcome once it ended (a trial's: `passed`, `failed`, `violated`, ...), else null. */
  outcome: string | null;
  /** The rewards summed so far. */
  reward: number;
}

/** `GET /group?group_id=…`: the members and whether they all passed or all failed (DAPO's filter). */
export interface GroupDoc {
  group_id: string;
  task_id: string;
  members: GroupMemberDoc[];
  /** Every member's episode has ended. */
  finished: boolean;
  /** Finished, and every member passed. */
  all_passed: boolean;
  /** Finished, and no member passed. */
  all_failed: boolean;
}

/** A member: its session and the episode the group started there (its task object names it). */
export interface GroupMember {
  episodeId: string;
  session: Episode;
  task: Task;
}

interface Group {
  taskId: string;
  members: GroupMember[];
}

/** Group members kept, as a multiple of the session cap (each holds only its episode's bookkeeping). */
export const GROUPS_KEPT_PER_SESSION = 4;

export class GroupRegistry {
  private readonly groups = new Map<string, Group>();
  private members = 0;

  /** `capacity`: the most members kept over all groups (the newest groups' are). */
  constructor(private readonly capacity: number) {}

  /** A new group's id. */
  static newId(): string {
    return `grp-${randomUUID()}`;
  }

  /** Registers group `id`, whose members were just reset on task `taskId`. */
  add(id: string, taskId: string, members: GroupMember[]): void {
    this.groups.set(id, { taskId, members });
    this.members += members.length;
    // the oldest groups go first (a Map iterates in insertion order); the newest always stays
    for (const [old, group] of this.groups) {
      if (this.members <= this.capacity || old === id) break;
      this.groups.delete(old);
      this.members -= group.members.length;
    }
  }

  /** The group's results, or undefined for an unknown (or long-forgotten) group. */
  doc(groupId: string): GroupDoc | undefined {
    const group = this.groups.get(groupId);
    if (!group) return undefined;
    const members = group.members.map(({ episodeId, session, task }): GroupMemberDoc => {
      // a member reset again since (a new episode: a new task object) is no longer the group's
      const same = session.currentTask === task;
      const end = same ? session.end : undefined;
      return {
        episode_id: episodeId,
        done: same ? session.done : false,
        outcome: end?.outcome ?? null,
        reward: same ? session.rewardSum : 0,
      };
    });
    const finished = members.every((m) => m.done);
    const passed = members.filter((m) => m.outcome === "passed").length;
    return {
      group_id: groupId,
      task_id: group.taskId,
      members,
      finished,
      all_passed: finished && passed === members.length,
      all_failed: finished && passed === 0,
    };
  }
}

/** `GroupDoc` as a JSON object (for a reply). */
export const groupJson = (doc: GroupDoc): JsonObject => doc as unknown as JsonObject;
