import type { Agent, Check, TaskRequest, Verdict, Violation } from "../../core/contracts.ts";
import type { Effect } from "../../core/effect-log.ts";
import { configError } from "../../core/errors.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../../core/json.ts";
import type { FamilyInfo, WorldDefinition } from "../../core/registry.ts";
import { toolDescriptor } from "../../core/tool.ts";
import {
  episodeStart,
  ToolWorld,
  type ToolWorldDefinition,
  type ToolWorldState,
  type WorldToolContext,
  type WorldTools,
} from "../../core/tool-world.ts";
import { type AdmissibleDeclaration, AdmissibleToolWorld } from "./admissible-tool-world.ts";
import { assembleTask } from "./assemble-task.ts";

/** The state of a world made with `defineToolWorld`: its entities `E` and the tool-world bookkeeping. */
export type SimpleWorldState<E extends JsonObject> = ToolWorldState<E, Record<string, never>>;

/** A tool of such a world, typed against its context (`ctx.state.entities` is `E`). */
export type SimpleWorldContext<E extends JsonObject> = WorldToolContext<SimpleWorldState<E>>;

/** What a small tool world is, as data and pure functions. */
export interface SimpleWorldOptions<E extends JsonObject> {
  /** `name@version`. */
  id: string;
  description: string;
  families: FamilyInfo[];
  /** The hidden task: its params and the instruction the agent reads. Deterministic in the request. */
  task(request: TaskRequest): { params: JsonObject; instruction: string; tags?: string[] };
  /** The entities an episode starts with, from the task's params. */
  start(params: JsonObject): E;
  /** What the first observation shows of the task (default: nothing). */
  context?(entities: E): JsonObject;
  tools: WorldTools<SimpleWorldState<E>>;
  /** Tools whose successful call ends the episode. */
  terminal: string[];
  /** The frozen verifier: checks (all must pass) and violations, from the final entities and effects. */
  verify(entities: E, effects: readonly Effect[]): { checks: Check[]; violations?: Violation[] };
  /** Scripted policies, by name; `knownGood` names the one that passes every task. */
  policies?: Record<string, Agent>;
  knownGood?: string;
  expectedFailures?: WorldDefinition["expectedFailures"];
  /** Virtual seconds every call takes (default 1). */
  latency?: number;
  /**
   * Declare admissible actions (`capabilities.admissible`), built from the tools' JSON Schemas and
   * what the agent saw, with these declarations (`{}`: the defaults only). Absent: none declared.
   */
  admissible?: AdmissibleDeclaration;
}

/**
 * A world from a few pure functions: tools over plain-data entities, a task generator and a verifier,
 * on `ToolWorld` (virtual time, effect log, trace, save/restore, inspection). A successful call of a
 * terminal tool ends the episode. Returns the `WorldDefinition` a gym takes (`createGym({worlds})`).
 *
 * @example
 * ```ts
 * const counter = defineToolWorld<{ count: number; target: number }>({
 *   id: "counter@1",
 *   description: "bring a counter to its target",
 *   tools: [add, done], // defineTool(...) each, inputs as z.strictObject(...)
 *   terminal: ["done"],
 *   families: [{ name: "reach", description: "reach the target", difficulties: [1, 2, 3] }],
 *   task: ({ difficulty, seed }) => ({ params: { target: 2 * difficulty + (seed % 3) }, instruction: "Reach the target." }),
 *   start: (params) => ({ count: 0, target: Number(params.target) }),
 *   context: (e) => ({ target: e.target }),
 *   verify: (e) => ({ checks: [{ name: "reached", passed: e.count === e.target }] }),
 * });
 * // the whole example, with policies: docs/library.md
 * ```
 */
export function defineToolWorld<E extends JsonObject>(o: SimpleWorldOptions<E>): WorldDefinition {
  const verifier = `verify.${o.id}`;
  const tools = o.tools.map((tool) =>
    o.terminal.includes(tool.name)
      ? {
          ...tool,
          run(args: never, ctx: SimpleWorldContext<E>) {
            const result = tool.run(args, ctx);
            if (result.ok) ctx.state.ended = true;
            return result;
          },
        }
      : tool,
  );
  const def: ToolWorldDefinition<SimpleWorldState<E>> = {
    spec: { id: o.id, world: o.id, tools: o.tools.map(toolDescriptor), terminalTools: o.terminal, verifier },
    tools,
    initialState: (task, seed, episode) => ({
      ...episodeStart(o.id, task, seed, episode, o.latency ?? 1),
      entities: o.start(cloneJson(task.params)),
      faults: {},
      counters: {},
    }),
    taskContext: (s) => o.context?.(s.entities) ?? {},
    runJob: () => undefined,
    verify(s, effects): Verdict {
      const { checks, violations = [] } = o.verify(s.entities, effects);
      const passed = checks.every((c) => c.passed) && violations.length === 0;
      return { passed, score: passed ? 1 : 0, checks, violations, verifier };
    },
  };
  const instance = () => (o.admissible ? new AdmissibleToolWorld(def, o.admissible) : new ToolWorld(def));
  return {
    id: o.id,
    description: o.description,
    verifier,
    families: o.families,
    generateTask(request) {
      const family = o.families.find((f) => f.name === request.family);
      if (!family) throw configError("unknown_family", `${o.id} has no family "${request.family}"`);
      if (!family.difficulties.includes(request.difficulty)) {
        throw configError("bad_difficulty", `${o.id}/${family.name} has no difficulty ${request.difficulty}`);
      }
      const { params, instruction, tags = [] } = o.task(request);
      return assembleTask({
        world: o.id,
        family: family.name,
        difficulty: request.difficulty,
        seed: request.seed,
        ...(request.split ? { split: request.split } : {}),
        overrides: request.params ?? {},
        params,
        instruction,
        tags,
        ranges: {},
      });
    },
    create: () => instance(),
    restore: (state: JsonValue) => instance().restore(state),
    policies: o.policies ?? {},
    knownGood: o.knownGood ?? "",
    expectedFailures: o.expectedFailures ?? {},
  };
}
