import type { Command } from "commander";
import type { TrialRecord } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
// the trial (and the runner) loads when `mcp` runs; the MCP SDK and hono when a transport starts
import type { McpTrial } from "../../mcp/trial.ts";
import { intOption, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { serveTargetFromFlags, untilSignal } from "./serve.ts";

export interface McpFlags {
  world?: string;
  variant?: string;
  family?: string;
  difficulty?: number;
  task?: string;
  seed?: number;
  maxSteps?: number;
  timeoutS?: number;
  store?: string;
  http?: boolean;
  port: number;
  host: string;
  token?: string;
  lingerS: number;
}

function log(line: string): void {
  process.stderr.write(`proving mcp: ${line}\n`);
}

function describeEnd(record: TrialRecord, store: string): string {
  return `trial ${record.spec.id} ${record.outcome} (${record.reason}); recorded in ${store}, experiment ${record.spec.experimentId}`;
}

async function runStdio(trial: McpTrial): Promise<void> {
  const server = await trial.createServer();
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      trial.bridge.disconnect("the MCP client closed stdin");
      resolve();
    };
  });
  process.stdin.once("end", () => void transport.close());
  await server.connect(transport);
  const signal = untilSignal().then(() => {
    trial.bridge.disconnect("interrupted");
    return transport.close();
  });
  void signal;
  await closed;
}

async function runHttp(trial: McpTrial, flags: McpFlags): Promise<void> {
  const token = flags.token ?? process.env.PROVING_MCP_TOKEN;
  const { serveMcpHttp } = await import("../../mcp/http.ts");
  const http = await serveMcpHttp(trial, { host: flags.host, port: flags.port, ...(token ? { token } : {}) });
  process.stdout.write(`${http.url}\n`);
  log(
    `MCP endpoint ${http.url}${token ? " (bearer token required)" : ""}; one trial, one session. Ctrl-C stops.`,
  );
  const interrupted = untilSignal().then(() => trial.bridge.disconnect("interrupted"));
  void interrupted;
  await trial.record.catch(() => undefined);
  // the trial is over: let the client read its last answer, then stop
  await Promise.race([
    http.sessionClosed,
    new Promise<void>((resolve) => setTimeout(resolve, flags.lingerS * 1000).unref()),
  ]);
  await http.close();
}

export function registerMcp(program: Command, gymSource: GymSource): void {
  program
    .command("mcp")
    .description(
      "run one trial whose agent is an MCP client (stdio, or streamable HTTP with --http); records it",
    )
    .option("--world <id>", "world id, e.g. device-support@1")
    .option("--variant <file|json>", "harnessed variant {world, layers} (a JSON/YAML file or inline JSON)")
    .option("--family <name>", "task family (default: the world's first)")
    .option("--difficulty <n>", "difficulty (default: the family's lowest)", intOption("--difficulty"))
    .option(
      "--task <id>",
      "task id <world@version>/<family>/d<difficulty>/s<seed> (instead of the three flags)",
    )
    .option("--seed <n>", "seed (default 0)", intOption("--seed"))
    .option("--max-steps <n>", "step budget", intOption("--max-steps"))
    .option(
      "--timeout-s <n>",
      // MCP_DEFAULT_WALL_TIMEOUT_MS of mcp/trial.ts (a test holds the two equal)
      "wall-clock budget (default 1800)",
      intOption("--timeout-s"),
    )
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--http", "serve streamable HTTP instead of stdio (prints the endpoint URL on stdout)")
    .option("--port <n>", "HTTP port (0: any free port)", intOption("--port"), 0)
    .option("--host <addr>", "HTTP address to bind", "127.0.0.1")
    .option("--token <token>", "HTTP: require `Authorization: Bearer <token>` (or set PROVING_MCP_TOKEN)")
    .option(
      "--linger-s <n>",
      "HTTP: after the trial ends, wait this long for the client to close",
      intOption("--linger-s"),
      30,
    )
    .action(async (flags: McpFlags) => {
      const { parseTaskId, startMcpTrial } = await import("../../mcp/trial.ts");
      let { world, family, difficulty, seed } = flags;
      if (flags.task) {
        if (flags.family || flags.difficulty !== undefined || flags.seed !== undefined) {
          throw configError("bad_flag", "--task names family, difficulty and seed; do not give them too");
        }
        const t = parseTaskId(flags.task);
        if (world && world !== t.world)
          throw configError("bad_flag", `--task is for ${t.world}, not ${world}`);
        ({ world, family, difficulty, seed } = t);
      }
      const target = serveTargetFromFlags(await gymSource(), {
        ...(world ? { world } : {}),
        ...(flags.variant ? { variant: flags.variant } : {}),
      });
      const budget = {
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
        ...(flags.timeoutS !== undefined ? { wallTimeoutMs: flags.timeoutS * 1000 } : {}),
      };
      const file = storePath(flags.store);
      await withStore(flags.store, "write", async (store) => {
        const trial = startMcpTrial({
          target,
          ...(family ? { family } : {}),
          ...(difficulty !== undefined ? { difficulty } : {}),
          ...(seed !== undefined ? { seed } : {}),
          budget,
          store,
          transport: flags.http ? "http" : "stdio",
        });
        trial.record.then(
          (r) => log(describeEnd(r, file)),
          (err) => log(`the trial could not be recorded: ${(err as Error).message}`),
        );
        if (flags.http) await runHttp(trial, flags);
        else await runStdio(trial);
        // whatever ended the connection, the trial ends and is recorded before the store closes
        await trial.record;
      });
    });
}
