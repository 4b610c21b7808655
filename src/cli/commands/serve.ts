import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { ServedCurriculum } from "../../curriculum/serve-task-source.ts";
import type { Gym } from "../../gym/gym.ts";
import { isLoopbackHost } from "../../serve/auth.ts";
// hono and ws load when the server starts, not with the CLI
import { DEFAULT_PORT } from "../../serve/defaults.ts";
import {
  DEFAULT_EVICT_AFTER_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
} from "../../serve/sessions.ts";
import type { ServeTarget } from "../../serve/target.ts";
import type { Store } from "../../store/store.ts";
import { collect, collectInt, intOption, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { readOneVariant } from "../variant-flag.ts";
import { connectAnyRemote, remoteServeTarget } from "./remote-target.ts";

export interface ServeFlags {
  world?: string;
  variant?: string;
  /** A foreign OpenEnv server's URL: its world is served (wrapped by `variant` when given). */
  remote?: string;
  port: number;
  host: string;
  token?: string;
  operatorToken?: string;
  maxSessions: number;
  idleTimeoutS: number;
  /** HTTP sessions' idle timeout (default: the idle timeout, at most 60 s). */
  httpIdleTimeoutS?: number;
  evictAfterS: number;
  maxSteps: number;
  family?: string[];
  difficulty?: number[];
  heartbeatS: number;
  maxBodyBytes: number;
  allowOrigin?: string[];
  maxJsonDepth: number;
  maxStringLength: number;
  store?: string;
  experiment?: string;
  /** A split file, or `true` (the flag alone): the served world's default split. */
  curriculum?: string | true;
  strategy?: string;
  curriculumId?: string;
  json?: boolean;
}

/** The served target for `--world` / `--variant` (one variant, built by the gym's harness). */
export function serveTargetFromFlags(gym: Gym, flags: { world?: string; variant?: string }): ServeTarget {
  const variant = flags.variant !== undefined ? readOneVariant(flags.variant, gym) : undefined;
  return gym.target(flags.world, variant);
}

/** Waits for SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

export function registerServe(program: Command, gymSource: GymSource): void {
  program
    .command("serve")
    .description("serve a world over an OpenEnv-compatible HTTP + WebSocket API (/reset, /step, /state, /ws)")
    .option("--world <id>", "world id, e.g. device-support@1")
    .option("--variant <file|json>", "harnessed variant {world, layers} (a JSON/YAML file or inline JSON)")
    .option(
      "--remote <url>",
      "serve an OpenEnv server we did not write (reward-judged), bare or wrapped by --variant (its world: the server's, or left out); token: $PROVING_REMOTE_TOKEN",
    )
    .option("--port <n>", "port (0: any free port)", intOption("--port"), DEFAULT_PORT)
    .option("--host <addr>", "address to bind (non-loopback exposes the server to the network)", "127.0.0.1")
    .option("--token <token>", "require `Authorization: Bearer <token>` (or set PROVING_SERVE_TOKEN)")
    .option(
      "--operator-token <token>",
      "a second token whose holder is told hidden task parameters and fault layers (or set PROVING_SERVE_OPERATOR_TOKEN)",
    )
    .option(
      "--max-sessions <n>",
      "concurrent sessions (HTTP episodes + WS connections)",
      intOption("--max-sessions"),
      DEFAULT_MAX_SESSIONS,
    )
    .option(
      "--idle-timeout-s <n>",
      "reclaim a session unused this long (0: never)",
      intOption("--idle-timeout-s"),
      DEFAULT_IDLE_TIMEOUT_MS / 1000,
    )
    .option(
      "--http-idle-timeout-s <n>",
      "reclaim an HTTP session (a plain /reset) unused this long (default: the idle timeout, at most 60; 0: never)",
      intOption("--http-idle-timeout-s"),
    )
    .option(
      "--evict-after-s <n>",
      "when full, a new session evicts the least recently used session idle this long (HTTP first)",
      intOption("--evict-after-s"),
      DEFAULT_EVICT_AFTER_MS / 1000,
    )
    .option("--max-steps <n>", "truncate an episode after this many steps", intOption("--max-steps"), 200)
    .option(
      "--family <name>",
      "families a reset without `family` samples from (repeatable; default all)",
      collect,
    )
    .option(
      "--difficulty <n>",
      "difficulties a reset without `difficulty` samples from (repeatable; default 1)",
      collectInt("--difficulty"),
    )
    .option(
      "--heartbeat-s <n>",
      "WS ping period; silent connections are dropped (0: off)",
      intOption("--heartbeat-s"),
      15,
    )
    .option("--max-body-bytes <n>", "largest request body / WS frame", intOption("--max-body-bytes"), 1 << 20)
    .option(
      "--allow-origin <origin>",
      "let browser pages from this origin (scheme://host:port, or *) call the server (repeatable; default none)",
      collect,
    )
    .option("--max-json-depth <n>", "deepest nesting of request JSON", intOption("--max-json-depth"), 64)
    .option(
      "--max-string-length <n>",
      "longest string in request JSON",
      intOption("--max-string-length"),
      65_536,
    )
    .option(
      "--store <path|url>",
      "record every episode as a trial of one experiment in this store (SQLite file or postgres://…); default: nothing recorded",
    )
    .option("--experiment <id>", "the recorded experiment's id (with --store; default serve-<stamp>)")
    .option(
      "--curriculum [splits]",
      "a reset without a task draws the next one from a curriculum that learns from each finished episode (split file as `curriculum run --splits` reads it; alone: the world's default split); needs --store",
    )
    .option(
      "--strategy <name>",
      "the curriculum's strategy: uniform | target-band | learnability (default) | learnability-recovery | plr | learning-progress",
    )
    .option(
      "--curriculum-id <id>",
      "the curriculum run in the store (default serve-<world>-<strategy>); the same id continues it",
    )
    .option("--json", "print the address as one JSON line on stdout")
    .action(async (flags: ServeFlags) => {
      const gym = await gymSource();
      checkServeFlags(flags);
      // a foreign server's world joins this gym's registry; its sessions close when serve stops
      const remote = flags.remote
        ? await connectAnyRemote(flags.remote, process.env.PROVING_REMOTE_TOKEN, gym)
        : undefined;
      try {
        await serveTarget(
          gym,
          remote ? remoteServeTarget(gym, remote, flags) : serveTargetFromFlags(gym, flags),
          flags,
        );
      } finally {
        await remote?.close();
      }
    });
}

/** The flag checks that need no target. */
function checkServeFlags(flags: ServeFlags): void {
  if (flags.maxJsonDepth < 2 || flags.maxStringLength < 256) {
    throw configError("bad_flag", "--max-json-depth must be at least 2 and --max-string-length at least 256");
  }
  if (flags.maxSessions < 1) throw configError("bad_flag", "--max-sessions must be at least 1");
  if (flags.idleTimeoutS < 0 || flags.heartbeatS < 0 || flags.maxSteps < 1 || flags.maxBodyBytes < 1024) {
    throw configError(
      "bad_flag",
      "--idle-timeout-s and --heartbeat-s ≥ 0, --max-steps ≥ 1, --max-body-bytes ≥ 1024",
    );
  }
  if ((flags.httpIdleTimeoutS ?? 0) < 0 || flags.evictAfterS < 0) {
    throw configError("bad_flag", "--http-idle-timeout-s and --evict-after-s ≥ 0");
  }
  if (flags.experiment !== undefined && flags.store === undefined) {
    throw configError("bad_flag", "--experiment names the recorded experiment: give --store too");
  }
  if (flags.curriculum === undefined && (flags.strategy ?? flags.curriculumId) !== undefined) {
    throw configError("bad_flag", "--strategy and --curriculum-id go with --curriculum");
  }
  if (flags.curriculum !== undefined && flags.store === undefined) {
    throw configError("bad_flag", "--curriculum learns from recorded episodes: give --store too");
  }
}

/** Serves `target` until a signal, recording into `--store` (and learning a curriculum) when asked. */
async function serveTarget(gym: Gym, target: ServeTarget, flags: ServeFlags): Promise<void> {
  for (const family of flags.family ?? []) {
    if (!target.world.families.some((f) => f.name === family)) {
      throw configError("unknown_family", `unknown family "${family}" for ${target.world.id}`);
    }
  }
  if (flags.store === undefined) return serveUntilSignal(target, flags);
  const where = storePath(flags.store);
  const { curriculum } = flags;
  await withStore(flags.store, "write", async (store) => {
    if (curriculum === undefined) return serveUntilSignal(target, flags, { store, where });
    const { withServedCurriculum } = await import("./serve-curriculum.ts");
    await withServedCurriculum(gym, target, where, { ...flags, curriculum }, (served) =>
      serveUntilSignal(target, flags, { store, where, curriculum: served }),
    );
  });
}

/** Starts the server (recording into `record.store` when given), waits for SIGINT/SIGTERM, stops it. */
async function serveUntilSignal(
  target: ServeTarget,
  flags: ServeFlags,
  record?: { store: Store; where: string; curriculum?: ServedCurriculum },
): Promise<void> {
  const curriculum = record?.curriculum;
  const token = flags.token ?? process.env.PROVING_SERVE_TOKEN;
  const operatorToken = flags.operatorToken ?? process.env.PROVING_SERVE_OPERATOR_TOKEN;
  const { startServer } = await import("../../serve/server.ts");
  const server = await startServer({
    target,
    host: flags.host,
    port: flags.port,
    ...(token ? { token } : {}),
    ...(operatorToken ? { operatorToken } : {}),
    maxSessions: flags.maxSessions,
    idleTimeoutMs: flags.idleTimeoutS * 1000,
    ...(flags.httpIdleTimeoutS !== undefined ? { httpIdleTimeoutMs: flags.httpIdleTimeoutS * 1000 } : {}),
    evictAfterMs: flags.evictAfterS * 1000,
    maxSteps: flags.maxSteps,
    heartbeatMs: flags.heartbeatS * 1000,
    maxBodyBytes: flags.maxBodyBytes,
    maxJsonDepth: flags.maxJsonDepth,
    maxStringLength: flags.maxStringLength,
    ...(flags.allowOrigin?.length ? { allowOrigins: flags.allowOrigin } : {}),
    ...(flags.family?.length ? { families: flags.family } : {}),
    ...(flags.difficulty?.length ? { difficulties: flags.difficulty } : {}),
    // a seeded reset derives its family among the curriculum's (held-out ones are asked for by split)
    ...(curriculum && !flags.family?.length ? { families: curriculum.dynamicFamilies } : {}),
    ...(curriculum ? { taskSource: curriculum } : {}),
    ...(record
      ? {
          record: {
            store: record.store,
            ...(flags.experiment !== undefined ? { experimentId: flags.experiment } : {}),
          },
        }
      : {}),
  });
  const wsUrl = `${server.url.replace(/^http/, "ws")}/ws`;
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({
        url: server.url,
        ws_url: wsUrl,
        environment: target.id,
        world: target.world.id,
        ...(flags.remote !== undefined ? { remote: flags.remote } : {}),
        ...(server.experimentId !== undefined ? { experiment: server.experimentId } : {}),
        ...(curriculum ? { curriculum: curriculum.id } : {}),
      })}\n`,
    );
  }
  process.stderr.write(
    `proving serve: ${target.id}${flags.remote !== undefined ? ` (the server at ${flags.remote})` : ""} on ${server.url} (WebSocket ${wsUrl}); ` +
      `≤${server.sessions.maxSessions} sessions, idle ${flags.idleTimeoutS} s` +
      `${token ? ", bearer token required" : ""}${operatorToken ? ", operator token set" : ""}. Ctrl-C stops.\n`,
  );
  if (record && server.experimentId !== undefined) {
    process.stderr.write(
      `proving serve: recording each episode as a trial of experiment ${server.experimentId} in ${record.where}\n`,
    );
  }
  if (curriculum) {
    process.stderr.write(
      `proving serve: a reset without a task draws from curriculum ${curriculum.id} (${curriculum.strategy}); GET /curriculum shows it\n`,
    );
  }
  if (!isLoopbackHost(flags.host) && !token) {
    process.stderr.write(
      `proving serve: warning: bound to ${flags.host} without a token: anyone who can reach it can play\n`,
    );
  }
  await untilSignal();
  await server.close();
  const counts = server.recordCounts();
  if (counts) {
    process.stderr.write(
      `proving serve: ${counts.recorded} of ${counts.planned} episode(s) recorded in experiment ${server.experimentId}` +
        `${counts.recorded < counts.planned ? " (the rest stay missing: they never ended)" : ""}\n`,
    );
  }
}
