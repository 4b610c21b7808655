import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Budget, EpisodeInfo, TrialRecord, TrialSpec } from "../core/contracts.ts";
import { configError, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { executePlan } from "../runner/executor.ts";
import { DEFAULT_BUDGET } from "../runner/experiment.ts";
import { trialId } from "../runner/manifest.ts";
import { MemoryRecorder } from "../runner/memory-recorder.ts";
import { newExperimentId } from "../runner/plan.ts";
import { StoreRecorder } from "../runner/store-recorder.ts";
import { sequentialScheduler } from "../runner/trial-scheduler.ts";
import type { ServeTarget } from "../serve/target.ts";
import type { Store } from "../store/store.ts";
import { McpBridge } from "./bridge.ts";

/** An MCP agent thinks in wall-clock minutes, not milliseconds: 30 minutes unless told otherwise. */
export const MCP_DEFAULT_WALL_TIMEOUT_MS = 30 * 60_000;

export interface McpTrialOptions {
  target: ServeTarget;
  family?: string;
  difficulty?: number;
  seed?: number;
  budget?: Partial<Budget>;
  /** The trial is recorded here (manifest first, then the record). */
  store?: Store;
  experimentId?: string;
  /** How the agent connects, recorded in the agent ref (`mcp:stdio`, `mcp:http`). */
  transport: string;
  /** Server name shown to MCP clients. */
  serverName?: string;
  now?: () => Date;
}

export interface McpTrial {
  spec: TrialSpec;
  bridge: McpBridge;
  /** Resolves when the world has been reset and the agent started. */
  started: Promise<EpisodeInfo>;
  /** Resolves with the record once the trial has ended (and has been saved when a store was given). */
  record: Promise<TrialRecord>;
  /** A new MCP server for this trial (one per client connection; stdio and HTTP each need one). */
  createServer(): Promise<Server>;
}

/** A task id names its world, family, difficulty and seed: `device-support@1/lost-reply/d3/s7`. */
export function parseTaskId(id: string): { world: string; family: string; difficulty: number; seed: number } {
  const m = /^([^/]+@\d+)\/([^/]+)\/d(\d+)\/s(-?\d+)$/.exec(id.trim());
  if (!m) {
    throw configError(
      "bad_task_id",
      `task id "${id}" is not of the form <world@version>/<family>/d<difficulty>/s<seed>`,
    );
  }
  return { world: m[1], family: m[2], difficulty: Number(m[3]), seed: Number(m[4]) };
}

/**
 * Starts one trial whose agent is an MCP client: the world is reset now, and the trial runs through
 * the runner's one pipeline (`executePlan`, a one-trial plan) as tool calls arrive. The record is
 * verified and stored like any other trial's; a trial its experiment has recorded already is refused
 * (`experiment_exists`).
 */
export function startMcpTrial(opts: McpTrialOptions): McpTrial {
  const world = opts.target.world;
  const family = opts.family ?? world.families[0]?.name;
  const info = world.families.find((f) => f.name === family);
  if (!family || !info) {
    throw configError(
      "unknown_family",
      `unknown family "${family}" for ${world.id} (known: ${world.families.map((f) => f.name).join(", ")})`,
    );
  }
  const difficulty = opts.difficulty ?? info.difficulties[0];
  if (!info.difficulties.includes(difficulty)) {
    throw configError(
      "bad_difficulty",
      `${world.id}/${family} has no difficulty ${difficulty} (has ${info.difficulties.join(", ")})`,
    );
  }
  const seed = opts.seed ?? 0;
  const now = opts.now ?? (() => new Date());
  const experimentId = opts.experimentId ?? newExperimentId(now()).replace(/^exp-/, "mcp-");
  const variantId = opts.target.variant !== undefined ? opts.target.id : undefined;
  const agent = { id: "mcp", kind: "mcp", spec: `mcp:${opts.transport}` };
  const spec: TrialSpec = {
    schemaVersion: 1,
    id: trialId({
      experimentId,
      world: world.id,
      ...(variantId ? { variantId } : {}),
      family,
      difficulty,
      seed,
      repeat: 0,
      agent: agent.id,
    }),
    experimentId,
    index: 0,
    world: world.id,
    ...(opts.target.variant !== undefined ? { variant: opts.target.variant, variantId } : {}),
    family,
    difficulty,
    seed,
    repeat: 0,
    agent,
    budget: {
      ...DEFAULT_BUDGET,
      wallTimeoutMs: MCP_DEFAULT_WALL_TIMEOUT_MS,
      ...(opts.budget ?? {}),
    } as Budget,
  };
  const bridge = new McpBridge(agent.id);
  const store = opts.store;

  const config: JsonObject = {
    id: experimentId,
    description: `one trial driven by an MCP client (${agent.spec})`,
    worlds: [world.id],
    families: [family],
    difficulties: [difficulty],
    agents: [agent.spec],
    seed,
    trials: 1,
    repeats: 1,
    budget: spec.budget as unknown as JsonObject,
    ...(opts.target.variant !== undefined ? { variants: [opts.target.variant] } : {}),
  };
  // the runner's one pipeline: same budgets, outcomes, verifier, store writes as any trial
  const recorder = store ? new StoreRecorder(store, { flushEveryMs: 0 }) : new MemoryRecorder();
  let ran: TrialRecord | undefined;
  const record = executePlan(
    { experiment: { id: experimentId, config, createdAt: now().toISOString() }, manifest: [spec] },
    {
      registry: { world: () => world },
      agents: new Map([[agent.id, { ref: agent, forWorld: () => bridge.agent }]]),
      environment: () => opts.target.create(),
      onStep: bridge.onStep,
      recorder,
      scheduler: sequentialScheduler(),
      onTrial: (r) => {
        ran = r;
      },
    },
  ).then((result) => {
    if (!ran) {
      throw configError(
        "experiment_exists",
        `trial ${spec.id} is recorded already (${result.recordedBefore.size} of 1); choose another experiment id`,
      );
    }
    return ran;
  });
  // a trial that ends before the agent is started (a world that cannot reset) must not leave `started` hanging
  const started = Promise.race([
    bridge.started,
    record.then((r) => {
      throw new ProvingError("trial_not_started", `the trial ended before it started: ${r.reason}`);
    }),
  ]);
  started.catch(() => undefined);
  return {
    spec,
    bridge,
    started,
    record,
    async createServer() {
      const episode = await started;
      // the MCP SDK loads here, when a transport asks for the server
      const { createMcpServer } = await import("./server.ts");
      return createMcpServer(bridge, {
        instructions: episode.instruction,
        tools: episode.tools,
        ...(opts.serverName ? { name: opts.serverName } : {}),
      });
    },
  };
}
