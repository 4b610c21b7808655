import type {
  Action,
  AdmissibleAction,
  AdmissibleActions,
  Agent,
  Observation,
  Task,
} from "../../core/contracts.ts";
import { MAX_ADMISSIBLE_ACTIONS } from "../../core/contracts.ts";
import { canonicalJson } from "../../core/hash.ts";
import type { JsonObject, JsonValue } from "../../core/json.ts";
import type { Rng } from "../../core/rng.ts";
import { hiddenStrings } from "../agent-sweep.ts";
import type { Scope } from "../check-run.ts";
import { rngFor } from "../episodes.ts";
import { validates } from "../json-schema.ts";
import { type Cell, cellName, type Subject } from "../subject.ts";
import { type CheckPlan, noCells, type PlannedCheck } from "./planned-check.ts";

/** Steps of the walk that picks from the list itself (per cell, first seed). */
const WALK_STEPS = 25;

export const NO_ADMISSIBLE =
  "the environment declares no admissible actions (env.capabilities.admissible): an optional capability";

/** Every string leaf of a JSON value. */
function strings(v: JsonValue, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

/**
 * What the list must not offer before an observation showed it: every string of the task's params
 * of 4 characters or more (a value, or a long hidden text inside an argument), and the hidden
 * strings the `hidden` check looks for (the content hash, the verifier id, hidden params' lines).
 * A world's hidden params (`hiddenParams`) are compared like the rest; the params it declares the
 * list derives from what was seen (`admissibleDerivedParams`) are not.
 */
function secretsOf(subject: Subject, task: Task): string[] {
  // params the world declares the list derives from what was seen are not secrets of the list
  const derived = subject.world.admissibleDerivedParams ?? [];
  const params = Object.fromEntries(Object.entries(task.params).filter(([k]) => !derived.includes(k)));
  const out = new Set<string>(hiddenStrings(subject.world, { ...task, params } as Task));
  for (const s of strings(params as JsonValue)) if (s.length >= 4) out.add(s);
  return [...out];
}

/** A secret the list offers (as an argument, or inside one) though nothing the agent saw held it. */
function leaked(
  list: readonly AdmissibleAction[],
  secrets: readonly string[],
  seen: string,
): string | undefined {
  const offered = list.flatMap((a) => strings(a.args));
  const shown = (s: string) => seen.includes(s) || seen.includes(JSON.stringify(s).slice(1, -1));
  return secrets.find((h) => offered.some((o) => o === h || (h.length >= 8 && o.includes(h))) && !shown(h));
}

/** One episode's lists, one per state before an action (and the last state's). */
interface Walked {
  actions: Action[];
  lists: string[];
}

/** Chooses the next action from the observation and the list; undefined ends the episode. */
type Chooser = (
  obs: Observation,
  list: AdmissibleAction[],
) => Promise<{ tool: string; args: JsonObject } | undefined>;

/**
 * Plays one episode on a fresh instance of the cell, checking the list in every state before the
 * agent acts: at most `MAX_ADMISSIBLE_ACTIONS`, the same when asked twice, every call a tool of the
 * environment with arguments its JSON Schema accepts, and no secret of the task offered before the
 * observations (the tools and the agent's own arguments count as seen) showed it. `onAction` checks
 * the chosen action against the list it was chosen from.
 */
async function walk(
  subject: Subject,
  cell: Cell,
  s: Scope,
  choose: Chooser,
  onAction: (adm: AdmissibleActions, list: AdmissibleAction[], action: Action, where: string) => void,
  maxSteps = subject.maxSteps,
): Promise<Walked> {
  const task = subject.task(cell);
  const secrets = secretsOf(subject, task);
  const env = subject.create(cell);
  const out: Walked = { actions: [], lists: [] };
  let obs = await env.reset({ task, seed: cell.seed, episodeId: "conformance-admissible" });
  let seen = JSON.stringify(obs) + JSON.stringify(env.spec.tools);
  let ended = false;
  for (let step = 0; step < maxSteps && !ended; step++) {
    const where = `step ${step}`;
    const adm = env.capabilities.admissible;
    s.must(adm !== undefined, `${where}: the capability is gone (declared by a fresh instance)`);
    const list = adm.admissibleActions();
    const text = canonicalJson(list);
    out.lists.push(text);
    s.expect(
      list.length <= MAX_ADMISSIBLE_ACTIONS,
      `${where}: ${list.length} actions (at most ${MAX_ADMISSIBLE_ACTIONS})`,
    );
    s.expect(canonicalJson(adm.admissibleActions()) === text, `${where}: asked twice, two lists`);
    const tools = new Map(env.spec.tools.map((t) => [t.name, t]));
    for (const a of list) {
      const tool = tools.get(a.tool);
      if (!tool) {
        s.fail(`${where}: ${a.tool} is not a tool of the environment`);
        continue;
      }
      s.expect(
        validates(tool.input_schema, a.args),
        () =>
          `${where}: ${a.tool} ${JSON.stringify(a.args)} does not validate against its tool's JSON Schema`,
      );
    }
    const leak = leaked(list, secrets, seen);
    s.expect(
      leak === undefined,
      () => `${where}: offers the task's hidden "${leak?.slice(0, 60)}" before any observation showed it`,
    );
    const chosen = await choose(obs, list);
    if (!chosen) return finish(out);
    const action = { tool: chosen.tool, args: chosen.args, callId: `adm-${step}` } as Action;
    onAction(adm, list, action, where);
    out.actions.push(action);
    const r = await env.step(structuredClone(action));
    obs = r.observation;
    seen += JSON.stringify(obs) + JSON.stringify(action.args) + JSON.stringify(env.spec.tools);
    ended = r.terminated || r.truncated;
  }
  // the state after the last action (the episode's end, or out of steps)
  out.lists.push(canonicalJson(env.capabilities.admissible?.admissibleActions() ?? []));
  return finish(out);

  async function finish(walked: Walked): Promise<Walked> {
    await subject.release(env);
    return walked;
  }
}

/** Replays `walked.actions` on a fresh instance: the same states must give the same lists. */
async function sameLists(subject: Subject, cell: Cell, walked: Walked, s: Scope, who: string): Promise<void> {
  const env = subject.create(cell);
  try {
    await env.reset({ task: subject.task(cell), seed: cell.seed, episodeId: "conformance-admissible" });
    const lists = [canonicalJson(env.capabilities.admissible?.admissibleActions() ?? [])];
    for (const action of walked.actions) {
      const r = await env.step(structuredClone(action));
      lists.push(canonicalJson(env.capabilities.admissible?.admissibleActions() ?? []));
      if (r.terminated || r.truncated) break;
    }
    s.sameSteps(lists, walked.lists, `${who}'s actions replayed on a fresh instance give other lists`);
  } finally {
    await subject.release(env);
  }
}

/** The known-good policy's session on the cell, choosing by itself (the list is passed, as the runner does). */
async function knownGoodChooser(subject: Subject, cell: Cell, agent: Agent): Promise<Chooser> {
  const task = subject.task(cell);
  const probe = subject.create(cell);
  const first = await probe.reset({ task, seed: cell.seed, episodeId: "conformance-admissible" });
  const tools = probe.spec.tools;
  await subject.release(probe);
  const session = await agent.start({
    episodeId: "conformance-admissible",
    world: subject.world.id,
    instruction: first.kind === "task" ? first.instruction : task.instruction,
    tools,
    samplingSeed: cell.seed,
  });
  return async (obs, list) => {
    try {
      return (await session.act(obs, { admissible: list })) as { tool: string; args: JsonObject };
    } catch {
      return undefined; // a scripted policy with nothing more to do
    }
  };
}

const randomChooser =
  (rng: Rng): Chooser =>
  async (_obs, list) =>
    list.length > 0 ? rng.pick(list) : undefined;

/**
 * Admissible actions, per family (an optional capability: `not_checkable` with its reason when the
 * environment does not declare it): in every state of the known-good policy's episodes and of a
 * seeded walk that picks from the list itself, the list is bounded (≤ 64), deterministic (asked
 * twice, and the same actions replayed on a fresh instance give the same lists), every call is
 * valid against its tool's JSON Schema, it offers no hidden value of the task before an observation
 * showed it, and every action of the known-good policy is in it once canonicalised
 * (`canonicalAction`: a key the policy generated becomes the list's fresh key, free text its text).
 */
export function admissibleChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  const noGood = subject.knownGoodProblem();
  return subject.families.map((family) => {
    const cells = subject.cells(family.name);
    const reason = plan.capabilities.admissible ? (noGood ?? noCells(plan, family.name)) : NO_ADMISSIBLE;
    return {
      name: `admissible: ${family.name}: bounded, deterministic, schema-valid, no hidden value, the known-good policy's actions listed`,
      kind: "admissible",
      ...(reason ? { notCheckable: reason } : {}),
      covers: `${cells.length} tasks: every state of ${subject.knownGood}'s episode and of a ${WALK_STEPS}-step walk over the list (first seed), each replayed on a fresh instance`,
      async run(run) {
        let listed = 0;
        for (const cell of cells) {
          await run.scope(cellName(cell), async (s: Scope) => {
            const agent = subject.policies[subject.knownGood]!;
            const good = await walk(
              subject,
              cell,
              s,
              await knownGoodChooser(subject, cell, agent),
              (adm, list, action, where) => {
                listed++;
                const c = adm.canonicalAction
                  ? adm.canonicalAction({ tool: action.tool, args: action.args })
                  : action;
                const text = canonicalJson({ tool: c.tool, args: c.args });
                s.expect(
                  list.some((a) => canonicalJson({ tool: a.tool, args: a.args }) === text),
                  () =>
                    `${where}: the known-good ${action.tool} ${JSON.stringify(action.args)} (as ${text}) is not in the list`,
                );
              },
            );
            await sameLists(subject, cell, good, s, subject.knownGood);
            if (cell.seed !== subject.seeds[0]) return;
            const rng = rngFor("admissible", cell);
            const random = await walk(subject, cell, s, randomChooser(rng), () => undefined, WALK_STEPS);
            await sameLists(subject, cell, random, s, "the walk");
          });
        }
        run.note(`${listed} actions of ${subject.knownGood} found in their lists`);
      },
    };
  });
}
