/**
 * Several sessions per client: a group reset (N sessions on the identical task and seed), batched
 * steps (one message steps many sessions; replies in order; a session's error is its own entry) and
 * forks (n sessions continuing a session's episode from its current state: save/restore, no
 * replay). Each runs in a `SessionScope`: the sessions one caller may reach (over HTTP every HTTP
 * episode by its id; over a WebSocket only that connection's own) and where new ones are opened
 * (every new session counts against `--max-sessions`).
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { type BatchEntry, batchError } from "./batch-protocol.ts";
import type { Viewer } from "./disclosure.ts";
import type { Episode } from "./episode.ts";
import { type GroupDoc, type GroupMember, GroupRegistry } from "./groups.ts";
import { type ResetParams, ServeError, type StepEnvelope } from "./protocol.ts";
import type { ServeTransport } from "./served-run.ts";
import type { SessionManager } from "./sessions.ts";
import type { SourcedTask } from "./task-source.ts";

/** The sessions one caller may reach, and where its new sessions are opened. */
export interface SessionScope {
  readonly via: ServeTransport;
  readonly sessions: SessionManager;
  /** The live session of `episodeId` this caller may reach, if any. */
  find(episodeId: string): Episode | undefined;
  /** `n` new sessions with their episode ids, all or none (`CAPACITY_REACHED`). */
  open(n: number): { session: Episode; episodeId: string }[];
  /** Whose operation turn the caller holds already (a WS connection's own session): not awaited again. */
  readonly held?: Episode;
}

/** Over HTTP: every HTTP episode by its id; new sessions are HTTP episodes. */
export function httpScope(sessions: SessionManager): SessionScope {
  return {
    via: "http",
    sessions,
    find: (id) => sessions.getHttp(id),
    open: (n) => {
      const ids = Array.from({ length: n }, () => `ep-${randomUUID()}`);
      return sessions.createMany("http", ids).map((session, i) => ({ session, episodeId: ids[i] }));
    },
  };
}

/** Runs `fn` in `session`'s turn (at once when the caller holds it). */
function inTurn<T>(scope: SessionScope, session: Episode, fn: () => Promise<T>): Promise<T> {
  return session === scope.held ? fn() : session.exclusive(scope.sessions.clock, fn);
}

/** A reply entry: the episode's envelope under its id. */
const entryOf = (episodeId: string, envelope: StepEnvelope): JsonObject =>
  ({ episode_id: episodeId, ...envelope }) as unknown as JsonObject;

/** Runs `start` on each session just opened; all or none (a failure closes every one). */
async function startAll(
  scope: SessionScope,
  opened: { session: Episode; episodeId: string }[],
  start: (session: Episode, episodeId: string, i: number) => Promise<StepEnvelope>,
): Promise<{ session: Episode; episodeId: string; envelope: StepEnvelope }[]> {
  const settled = await Promise.allSettled(
    opened.map(({ session, episodeId }, i) =>
      session.exclusive(scope.sessions.clock, () => start(session, episodeId, i)),
    ),
  );
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    for (const { session } of opened) scope.sessions.close(session, "group or fork failed");
    throw failed.reason;
  }
  return opened.map((o, i) => ({
    ...o,
    envelope: (settled[i] as PromiseFulfilledResult<StepEnvelope>).value,
  }));
}

/**
 * A group reset: `n` sessions on the identical task and seed (a reset that sent no seed gets one
 * drawn by the server, shared by the members; the task then derives from it as for a seeded reset).
 * Answers `{group_id, episodes: [{episode_id, observation, reward, done, metadata}]}`.
 */
export async function openGroup(
  scope: SessionScope,
  params: ResetParams,
  n: number,
  viewer: Viewer,
): Promise<JsonObject> {
  if (params.episode_id !== undefined) {
    throw new ServeError("VALIDATION_ERROR", "reset.episode_id: a group's members get their own ids");
  }
  const groupId = GroupRegistry.newId();
  const opened = scope.open(n);
  let drawn: SourcedTask[] | undefined;
  try {
    // a server with a task source (the curriculum) draws one task for the whole group
    drawn = scope.sessions.taskSource?.drawGroup(params, groupId, n);
  } catch (err) {
    for (const { session } of opened) scope.sessions.close(session, "group refused");
    throw err;
  }
  const shared: ResetParams =
    drawn || params.seed !== undefined ? params : { ...params, seed: scope.sessions.drawSeed() };
  const members = await startAll(scope, opened, (session, episodeId, i) =>
    session.reset(shared, episodeId, viewer, scope.via, drawn?.[i]),
  );
  const recorded: GroupMember[] = members.map(({ session, episodeId }) => ({
    episodeId,
    session,
    task: session.currentTask as NonNullable<Episode["currentTask"]>,
  }));
  scope.sessions.groups.add(groupId, recorded[0].task.id, recorded);
  return {
    group_id: groupId,
    episodes: members.map((m) => entryOf(m.episodeId, m.envelope)),
  };
}

/**
 * A fork: `n` new sessions continuing `episodeId`'s episode from its state now (taken in its turn,
 * so no step of it runs meanwhile). Answers `{episodes: [...]}`: each fork's id and the parent's
 * latest observation.
 */
export async function forkEpisode(
  scope: SessionScope,
  episodeId: string,
  n: number,
  viewer: Viewer,
): Promise<JsonObject> {
  const parent = scope.find(episodeId);
  if (!parent) throw unknownEpisode(episodeId);
  return inTurn(scope, parent, async () => {
    const saved = parent.saveForFork();
    const forks = await startAll(scope, scope.open(n), (session, id) =>
      session.forkFrom(parent, saved, id, viewer, scope.via),
    );
    return { episodes: forks.map((f) => entryOf(f.episodeId, f.envelope)) };
  });
}

/**
 * Batched steps: every entry's step, run at once across sessions (in order within one session),
 * answered in request order; an entry whose session is not this caller's, or whose step failed, is
 * its own `{episode_id, error: {code, message}}`.
 */
export function stepBatch(scope: SessionScope, entries: BatchEntry[], viewer: Viewer): Promise<JsonObject[]> {
  return Promise.all(entries.map((entry) => stepEntry(scope, entry, viewer)));
}

function stepEntry(scope: SessionScope, entry: BatchEntry, viewer: Viewer): Promise<JsonObject> {
  const id = entry.episodeId;
  if ("error" in entry) return Promise.resolve(batchError(id, entry.error));
  const session = scope.find(id);
  if (!session) return Promise.resolve(batchError(id, unknownEpisode(id)));
  const opts = entry.admissible ? { viewer, admissible: true } : { viewer };
  return inTurn(scope, session, () => session.step(entry.action, opts)).then(
    (envelope) => entryOf(id, envelope),
    (err: unknown) =>
      batchError(
        id,
        err instanceof ServeError ? err : new ServeError("EXECUTION_ERROR", "internal error in the step"),
      ),
  );
}

/** `GET /group`: a group's results (404 `SESSION_ERROR` for an unknown one). */
export function groupResult(sessions: SessionManager, groupId: string): GroupDoc {
  const doc = sessions.groups.doc(groupId);
  if (!doc) {
    throw new ServeError("SESSION_ERROR", `unknown group_id "${quoteInput(groupId, 64)}"`, { status: 404 });
  }
  return doc;
}

function unknownEpisode(episodeId: string): ServeError {
  return new ServeError(
    "SESSION_ERROR",
    `unknown episode_id "${quoteInput(episodeId, 64)}" (not one of this client's live sessions)`,
    { status: 404 },
  );
}

/** A WebSocket connection's sessions: its own session and those its groups and forks opened. */
export interface ConnectionScope extends SessionScope {
  /** The connection's own session (its turn is held while a message other than `step` runs). */
  readonly held: Episode;
  /** Closes every session the connection opened (not its own session). */
  closeAll(reason: string): void;
  /** Whether `episodeId` named a session this connection opened and has since lost (closed, reclaimed). */
  lost(episodeId: string): boolean;
}

/** How many lost episode ids a connection remembers (the newest). */
const LOST_IDS_KEPT = 4096;

/**
 * The scope of one WebSocket connection: only its sessions can be reached (another connection's
 * episode ids are unknown here). When the server is short of room for new ones, the connection's
 * own ended sessions are closed first (they can no longer be stepped; their groups keep the results).
 */
export function connectionScope(sessions: SessionManager, own: Episode): ConnectionScope {
  const opened = new Map<string, Episode>();
  const lost = new Set<string>();
  const release = (ended: boolean, reason: string) => {
    for (const session of [...opened.values()]) if (!ended || session.done) sessions.close(session, reason);
  };
  return {
    via: "ws",
    sessions,
    held: own,
    find: (id) => (own.id === id ? own : opened.get(id)),
    open: (n) => {
      if (sessions.room < n) release(true, "ended; room needed");
      const ids = Array.from({ length: n }, () => `ep-${randomUUID()}`);
      return sessions.createMany("ws", ids).map((session, i) => {
        const episodeId = ids[i];
        opened.set(episodeId, session);
        session.onEvict = () => {
          opened.delete(episodeId);
          lost.add(episodeId);
          if (lost.size > LOST_IDS_KEPT) lost.delete(lost.values().next().value as string);
        };
        return { session, episodeId };
      });
    },
    closeAll: (reason) => release(false, reason),
    lost: (id) => lost.has(id),
  };
}
