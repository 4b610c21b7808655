import { randomUUID } from "node:crypto";
import { Episode, type EpisodeDefaults, type SessionKind } from "./episode.ts";
import { GROUPS_KEPT_PER_SESSION, GroupRegistry } from "./groups.ts";
import { ServeError } from "./protocol.ts";
import type { ServedRun } from "./served-run.ts";
import type { ServeTarget } from "./target.ts";
import type { TaskSource } from "./task-source.ts";

export interface SessionLimits {
  /** Concurrent sessions (HTTP episodes and WS connections together). Default 64. */
  maxSessions?: number;
  /** A session unused this long is reclaimed. Default 300 000 ms; 0 turns the reaper off. */
  idleTimeoutMs?: number;
  /**
   * An HTTP session of a plain `/reset` (which OpenEnv's HTTP clients never close) unused this long
   * is reclaimed. Default: the idle timeout, at most 60 000 ms. Sessions opened as such (MCP's
   * `initialize`, `openenv/session/create`) keep the idle timeout.
   */
  httpIdleTimeoutMs?: number;
  /**
   * When the server is full, a new session evicts the least recently used session idle at least this
   * long (HTTP sessions first); its episode is abandoned. Default 10 000 ms; `Infinity`: never evict.
   */
  evictAfterMs?: number;
  /** How often the reaper looks (default: a quarter of the idle timeout, between 10 ms and 5 s). */
  reapIntervalMs?: number;
  /** Wall clock in ms (injected in tests). */
  now?: () => number;
}

export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
export const DEFAULT_HTTP_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_EVICT_AFTER_MS = 10_000;
/** The reason an evicted session is closed with (its WS connection is closed with 4000). */
export const EVICTED = "evicted: the server needed its slot";

export interface SessionCounts {
  active: number;
  http: number;
  ws: number;
  max: number;
  /** Sessions reclaimed since start (idle past the timeout). */
  reaped: number;
  /** Idle sessions evicted since start to make room for new ones. */
  evicted: number;
  closed: number;
}

/**
 * Every live session of a server under one cap. HTTP episodes are found by their `episode_id`;
 * WS sessions belong to their connection and cannot be reached by id. A timer reclaims sessions
 * idle past the timeout (never one in the middle of an operation); when the server is full, a new
 * session evicts the least recently used idle one (HTTP sessions first), so abandoned sessions
 * cannot lock new clients out.
 */
export class SessionManager {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly httpIdleTimeoutMs: number;
  readonly evictAfterMs: number;
  readonly clock: () => number;
  /** Groups of sessions on one task (`GET /group`). */
  readonly groups: GroupRegistry;
  private readonly http = new Map<string, Episode>();
  private readonly all = new Set<Episode>();
  /** HTTP sessions opened as sessions (they keep the idle timeout, not the HTTP one). */
  private readonly lasting = new WeakSet<Episode>();
  private timer: NodeJS.Timeout | undefined;
  private readonly reapIntervalMs: number;
  private reapedCount = 0;
  private closedCount = 0;
  private evictedCount = 0;

  constructor(
    private readonly target: ServeTarget,
    private readonly defaults: EpisodeDefaults,
    limits: SessionLimits = {},
    /** The recorded run every session's episodes are planned and recorded in (with a store). */
    private readonly run?: ServedRun,
  ) {
    this.maxSessions = Math.max(1, Math.floor(limits.maxSessions ?? DEFAULT_MAX_SESSIONS));
    this.idleTimeoutMs = Math.max(0, limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    this.httpIdleTimeoutMs = Math.max(
      0,
      limits.httpIdleTimeoutMs ?? Math.min(this.idleTimeoutMs, DEFAULT_HTTP_IDLE_TIMEOUT_MS),
    );
    this.evictAfterMs = Math.max(0, limits.evictAfterMs ?? DEFAULT_EVICT_AFTER_MS);
    this.clock = limits.now ?? Date.now;
    this.groups = new GroupRegistry(this.maxSessions * GROUPS_KEPT_PER_SESSION);
    this.reapIntervalMs =
      limits.reapIntervalMs ?? Math.min(5000, Math.max(10, Math.floor(this.shortestTimeout() / 4)));
  }

  get size(): number {
    return this.all.size;
  }

  counts(): SessionCounts {
    return {
      active: this.all.size,
      http: this.http.size,
      ws: this.all.size - this.http.size,
      max: this.maxSessions,
      reaped: this.reapedCount,
      evicted: this.evictedCount,
      closed: this.closedCount,
    };
  }

  /** The shorter of the two idle timeouts that are on (0 when both are off). */
  private shortestTimeout(): number {
    const on = [this.idleTimeoutMs, this.httpIdleTimeoutMs].filter((t) => t > 0);
    return on.length ? Math.min(...on) : 0;
  }

  start(): void {
    if (this.timer || this.shortestTimeout() === 0) return;
    this.timer = setInterval(() => this.reapIdle(), this.reapIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The HTTP session of an episode id, if it is live. */
  getHttp(episodeId: string): Episode | undefined {
    return this.http.get(episodeId);
  }

  /**
   * A new HTTP session under `episodeId` (the caller checked there is none). `lasting`: a session its
   * client opened as one (MCP's `initialize`, `openenv/session/create`) and closes, which keeps the
   * idle timeout; a plain `/reset`'s has the shorter HTTP one.
   */
  createHttp(episodeId: string, lasting = false): Episode {
    const episode = this.admit("http", episodeId);
    this.http.set(episodeId, episode);
    if (lasting) this.lasting.add(episode);
    return episode;
  }

  /** A new session owned by one WS connection. */
  createWs(): Episode {
    return this.admit("ws", `ws-${randomUUID()}`);
  }

  /** Sessions that can still be opened. */
  get room(): number {
    return this.maxSessions - this.all.size;
  }

  /**
   * New sessions at once (a group, a fork), all or none: each counts against the cap. `http`: under
   * the given episode ids (the caller checked there are none); `ws`: owned by one connection.
   */
  createMany(kind: SessionKind, keys: string[]): Episode[] {
    this.makeRoom(keys.length);
    if (this.room < keys.length) {
      throw new ServeError(
        "CAPACITY_REACHED",
        `server at capacity: ${keys.length} sessions asked for, ${Math.max(0, this.room)} of ${this.maxSessions} free`,
        { extra: { active_sessions: this.all.size, max_sessions: this.maxSessions, requested: keys.length } },
      );
    }
    return keys.map((key) => {
      const episode = this.admit(kind, kind === "ws" ? `ws-${randomUUID()}` : key);
      if (kind === "http") this.http.set(key, episode);
      return episode;
    });
  }

  /** Where a reset that leaves its task to the server gets one (the curriculum), if anywhere. */
  get taskSource(): TaskSource | undefined {
    return this.defaults.taskSource;
  }

  /** The seed of a group reset that sent none: drawn from the server's random source. */
  drawSeed(): number {
    return Math.floor((this.defaults.random ?? Math.random)() * 2 ** 31);
  }

  /**
   * Frees room for `n` new sessions when there is too little: reclaims sessions idle past their
   * timeout, then evicts the least recently used sessions idle past `evictAfterMs` (HTTP first) —
   * only when that makes room for all `n`.
   */
  private makeRoom(n: number): void {
    if (this.room >= n) return;
    this.reapIdle();
    const short = n - this.room;
    if (short <= 0) return;
    const now = this.clock();
    const idle = [...this.all].filter((e) => !e.isBusy && now - e.lastActive >= this.evictAfterMs);
    if (idle.length < short) return;
    idle.sort((a, b) => (a.kind === b.kind ? a.lastActive - b.lastActive : a.kind === "http" ? -1 : 1));
    for (const episode of idle.slice(0, short)) this.evict(episode);
  }

  private evict(episode: Episode): void {
    this.all.delete(episode);
    if (episode.kind === "http" && this.http.get(episode.key) === episode) this.http.delete(episode.key);
    this.evictedCount++;
    // an episode that had not ended is abandoned: its trial stays `missing`, the curriculum is not fed
    episode.dispose(EVICTED);
  }

  private admit(kind: SessionKind, key: string): Episode {
    this.makeRoom(1);
    if (this.all.size >= this.maxSessions) {
      throw new ServeError(
        "CAPACITY_REACHED",
        `server at capacity: ${this.all.size} of ${this.maxSessions} sessions in use`,
        { extra: { active_sessions: this.all.size, max_sessions: this.maxSessions } },
      );
    }
    const episode = new Episode(this.target, this.defaults, { kind, key, now: this.clock(), run: this.run });
    this.all.add(episode);
    return episode;
  }

  /** Closes a session (client asked, connection gone, server stopping). */
  close(episode: Episode, reason: string): void {
    if (!this.all.delete(episode)) return;
    if (episode.kind === "http" && this.http.get(episode.key) === episode) this.http.delete(episode.key);
    this.closedCount++;
    episode.dispose(reason);
  }

  /** Reclaims every session idle past the timeout; returns how many. */
  reapIdle(): number {
    if (this.shortestTimeout() === 0) return 0;
    const now = this.clock();
    let reaped = 0;
    for (const episode of [...this.all]) {
      const timeout =
        episode.kind === "http" && !this.lasting.has(episode) ? this.httpIdleTimeoutMs : this.idleTimeoutMs;
      if (timeout === 0 || episode.isBusy || now - episode.lastActive < timeout) continue;
      this.all.delete(episode);
      if (episode.kind === "http" && this.http.get(episode.key) === episode) this.http.delete(episode.key);
      episode.dispose("idle timeout");
      reaped++;
    }
    this.reapedCount += reaped;
    return reaped;
  }

  closeAll(reason: string): void {
    for (const episode of [...this.all]) this.close(episode, reason);
  }
}
