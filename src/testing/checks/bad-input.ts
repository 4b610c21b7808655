import type { Action, Environment, StepResult, ToolDescriptor, ToolError } from "../../core/contracts.ts";
import { ProvingError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";
import type { CheckRun, Scope } from "../check-run.ts";
import { edgeArgs } from "../edge-values.ts";
import { contextStrings, fits, refusedByTransport, verdictOf } from "../episodes.ts";
import { validates } from "../json-schema.ts";
import { laxCoerced } from "../lax-coercion.ts";
import { malformedArgs } from "../malformed.ts";
import type { Cell } from "../subject.ts";
import type { CheckPlan, PlannedCheck } from "./planned-check.ts";

/** Malformed calls per episode: a fresh episode after this many (a server may cap an episode's steps). */
const CASES_PER_EPISODE = 100;

/** Names no tool has: odd ones, and near misses of a real tool's name (case, whitespace). */
function unknownToolNames(tools: readonly ToolDescriptor[]): string[] {
  const real = tools[0]?.name ?? "tool";
  const names = ["", "no_such_tool", "__proto__", "constructor", "toString", "x".repeat(10_000)];
  names.push(real.toUpperCase(), ` ${real}`, `${real}\n`);
  return [...new Set(names)].filter((name) => !tools.some((t) => t.name === name));
}

const isPlainObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Outside the Action contract (`{tool: non-empty string, args: object}`): the runner never passes
 * such a call to an environment (it ends the trial as the agent's error first), so an environment
 * may refuse it with a coded error of the caller's fault (a remote server's protocol check) instead
 * of answering it.
 */
const outsideContract = (action: Action) =>
  typeof action.tool !== "string" || action.tool.length === 0 || !isPlainObject(action.args);

/** How the environment took one bad call. */
type Taken =
  | { kind: "answered"; error: ToolError; byLayer: boolean }
  | { kind: "accepted"; ended: boolean }
  | { kind: "refused" }
  | { kind: "transport" }
  | { kind: "broken" };

/** What the cases came to, beyond failures (reported as details of a passed check). */
interface Tally {
  layered: number;
  refused: number;
  skipped: number;
  /** Refused by the transport as past its limits (undeclared ones), before the world saw them. */
  transport: number;
  /** Answers by error code, counted where the environment's codes are its own (`badCallCodes: "any"`). */
  codes: Map<string, number>;
  /** Accepted once a lax validator converted a wrong-typed value (`badCallCodes: "any"`). */
  coerced: number;
}

const newTally = (): Tally => ({
  layered: 0,
  refused: 0,
  skipped: 0,
  transport: 0,
  codes: new Map(),
  coerced: 0,
});

/** Whether the arguments validate once converted as a lax validator (pydantic's default) converts them. */
function laxValid(schema: unknown, args: unknown): boolean {
  const coerced = laxCoerced(schema, args);
  return coerced !== undefined && validates(schema, coerced);
}

/**
 * One bad call: it must not throw and must answer a well-formed, plain-JSON `tool_result` observation
 * that does not end the episode (a call outside the Action contract may instead be refused with a
 * coded error of the caller's fault). `byLayer`: a harness layer acted on the step (`info.layers`).
 */
async function takeBadCall(s: Scope, env: Environment, action: Action): Promise<Taken> {
  let r: StepResult;
  try {
    r = await env.step(action);
  } catch (err) {
    const callers = err instanceof ProvingError && (err.fault === "config" || err.fault === "agent");
    if (callers && outsideContract(action)) return { kind: "refused" };
    if (refusedByTransport(err)) return { kind: "transport" };
    s.fail(`step threw ${err instanceof Error ? err.message : String(err)}`);
    return { kind: "broken" };
  }
  const obs = r.observation;
  if (!s.expect(obs?.kind === "tool_result", "not a tool_result observation") || obs.kind !== "tool_result")
    return { kind: "broken" };
  s.expect(obs.callId === action.callId, "callId not echoed");
  s.equal(JSON.parse(JSON.stringify(obs)), obs, "the observation is not plain JSON");
  const result = obs.result;
  if (!s.expect(typeof result?.ok === "boolean", "result has no ok flag")) return { kind: "broken" };
  // an accepted call may end the episode (a game's winning move, taken once converted): judged apart
  if (result.ok) return { kind: "accepted", ended: r.terminated || r.truncated };
  s.expect(r.terminated === false, "a failed call ended the episode");
  s.expect(r.truncated === false, "a failed call truncated the episode");
  const e = result.error;
  if (!s.expect(typeof e === "object" && e !== null, "error result without an error"))
    return { kind: "broken" };
  s.expect(typeof e.code === "string", "error without a code");
  s.expect(typeof e.message === "string", "error without a message");
  s.expect(typeof e.retryable === "boolean", "error without retryable");
  return { kind: "answered", error: e, byLayer: (r.info?.layers?.length ?? 0) > 0 };
}

/**
 * Judges a bad call's answer: `invalid_argument`, not retryable, with a message (naming `field` when
 * given) — unless a harness layer refused the call before the world could check it (a rate limit
 * counts bad calls too), which `tally` counts. With `codes: "any"` (an environment whose codes are its
 * own) any coded answer with a message counts, and `tally` counts the codes; `lax`: the arguments are
 * valid once converted as a lax validator converts them, so accepting them is counted, not failed.
 */
function judge(
  s: Scope,
  taken: Taken,
  tally: Tally,
  codes: "ours" | "any",
  field?: string,
  lax = false,
): void {
  if (taken.kind === "refused") tally.refused++;
  if (taken.kind === "transport") tally.transport++;
  if (taken.kind === "accepted") {
    if (lax) tally.coerced++;
    else s.fail("accepted malformed arguments");
  }
  if (taken.kind !== "answered") return;
  const e = taken.error;
  if (codes === "any") {
    if (typeof e.code === "string") tally.codes.set(e.code, (tally.codes.get(e.code) ?? 0) + 1);
    s.expect(typeof e.message === "string" && e.message.length > 0, "empty message");
    return;
  }
  if (taken.byLayer && e.code !== "invalid_argument") {
    tally.layered++;
    return;
  }
  s.expect(e.code === "invalid_argument", `answered ${JSON.stringify(e)}`);
  s.expect(e.retryable === false, "invalid_argument is not retryable");
  s.expect(typeof e.message === "string" && e.message.length > 0, "empty message");
  if (field && field.length > 1 && field !== "__proto__")
    s.expect(e.message?.includes(field) === true, `the message does not name the field: ${e.message}`);
}

function noteTally(run: CheckRun, tally: Tally): void {
  if (tally.layered > 0)
    run.note(`${tally.layered} refused by a harness layer (info.layers) before the world's argument check`);
  if (tally.refused > 0)
    run.note(`${tally.refused} outside the Action contract refused with a coded error of the caller's fault`);
  if (tally.skipped > 0)
    run.note(
      `${tally.skipped} past the transport limits (maxActionBytes, maxStringLength, maxDepth) not sent`,
    );
  if (tally.transport > 0)
    run.note(`${tally.transport} refused by the transport as past its limits, before the world saw them`);
  if (tally.coerced > 0)
    run.note(
      `${tally.coerced} accepted once a wrong-typed value was converted as a lax validator converts it (pydantic's default: "42" or true to 42 for an integer): not counted as failures`,
    );
  if (tally.codes.size > 0)
    run.note(`answered with codes: ${[...tally.codes].map(([code, n]) => `${code} ×${n}`).join(", ")}`);
}

/** Schema-valid edge values per tool (an empty string, a lone `%`, unicode, huge numbers, ...). */
const EDGE_CASES_PER_TOOL = 40;

/**
 * The schema-valid edge calls of one tool: each must not throw and must answer a well-formed
 * `tool_result` (success or a coded error, either is fine): a tool that throws on a value its own
 * schema accepts (a lone `%` to `decodeURIComponent`) fails the check. A fresh episode after one ends.
 */
async function edgeCalls(
  run: CheckRun,
  tool: ToolDescriptor,
  cell: Cell,
  episode: (cell: Cell) => Promise<{ env: Environment; pool: string[] }>,
  subject: CheckPlan["subject"],
  tally: Tally,
): Promise<void> {
  let current: { env: Environment; pool: string[] } | undefined = await episode(cell);
  const cases = edgeArgs(
    tool.input_schema,
    Rng.seeded(7, `edge/${tool.name}`),
    current.pool,
    EDGE_CASES_PER_TOOL,
  );
  let sent = 0;
  for (const c of cases) {
    current ??= await episode(cell);
    const action = { tool: tool.name, args: c.args, callId: `edge-${++sent}` } as Action;
    if (!fits(subject, action)) {
      tally.skipped++;
      continue;
    }
    const env = current.env;
    let ended = false;
    await run.scope(`${tool.name} schema-valid ${c.how}`, async (s: Scope) => {
      let r: StepResult;
      try {
        r = await env.step(action);
      } catch (err) {
        if (refusedByTransport(err)) {
          tally.transport++;
          ended = true;
          return;
        }
        s.fail(`a schema-valid value threw ${err instanceof Error ? err.message : String(err)}`);
        ended = true;
        return;
      }
      ended = r.terminated || r.truncated;
      const obs = r.observation;
      if (
        !s.expect(obs?.kind === "tool_result", "not a tool_result observation") ||
        obs.kind !== "tool_result"
      )
        return;
      const result = obs.result;
      if (!s.expect(typeof result?.ok === "boolean", "result has no ok flag")) return;
      if (!result.ok) s.expect(typeof result.error?.code === "string", "error without a code");
    });
    if (ended) {
      await subject.release(env);
      current = undefined;
    }
  }
  if (current) await subject.release(current.env);
  if (cases.length)
    run.note(`${cases.length} schema-valid edge values to ${tool.name} answered without throwing`);
}

/**
 * Bad input: per tool, `fuzzPerTool` seeded malformed argument objects (ones its schema rejects) each
 * answer `{ok: false, error: {code: "invalid_argument", message (naming the field), retryable: false}}`,
 * never throw and never end the episode; unknown tool names too. Then up to 40 schema-VALID edge
 * values per tool (`edgeArgs`) must not throw either. The details of a passed check count
 * the calls a harness layer refused first and those outside the Action contract that were refused.
 */
export function badInputChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject, spec } = plan;
  const first = subject.firstCell();
  const n = subject.fuzzPerTool;
  const none = first ? undefined : "no family × difficulty is selected";
  /** A fresh episode of the first task; its reset observation's strings seed the cases' ids. */
  const episode = async (cell: Cell) => {
    const env = subject.create(cell);
    const obs = await env.reset({ task: subject.task(cell), seed: cell.seed });
    return { env, pool: contextStrings(obs) };
  };
  const perTool = (tool: ToolDescriptor): PlannedCheck => ({
    name: `bad input: ${n} malformed argument objects to ${tool.name}`,
    kind: "bad-input",
    ...(none ? { notCheckable: none } : {}),
    covers: `${n} cases`,
    async run(run) {
      if (!first) return;
      const rng = Rng.seeded(n, `malformed/${tool.name}`);
      const tally = newTally();
      let current: { env: Environment; pool: string[]; from: number } | undefined;
      let sent = 0;
      for (let tries = 0; sent < n; tries++) {
        if (tries >= n * 20) {
          run.record(`could only build ${sent} malformed cases for ${tool.name}`);
          break;
        }
        if (!current || sent - current.from >= CASES_PER_EPISODE) {
          if (current) await subject.release(current.env);
          current = { ...(await episode(first)), from: sent };
        }
        const c = malformedArgs(tool.input_schema, rng, current.pool);
        if (validates(tool.input_schema, c.args)) continue; // broke nothing the schema forbids
        const action = { tool: tool.name, args: c.args, callId: `fuzz-${sent + 1}` } as Action;
        if (!fits(subject, action)) {
          tally.skipped++;
          continue;
        }
        sent++;
        const env = current.env;
        const refusedBefore = tally.transport;
        let ended = false;
        await run.scope(`${tool.name} case ${sent} (${c.how.join(", ")})`, async (s: Scope) => {
          const taken = await takeBadCall(s, env, action);
          ended = taken.kind === "accepted" && taken.ended;
          const lax = subject.badCallCodes === "any" && laxValid(tool.input_schema, c.args);
          judge(s, taken, tally, subject.badCallCodes, c.field, lax);
        });
        if (tally.transport > refusedBefore || ended) {
          // the transport may have dropped the session with the request (WebSocket close 1009), or
          // an accepted call ended the episode: the next case gets a fresh one
          await subject.release(env);
          current = undefined;
        }
      }
      if (current) {
        const env = current.env;
        await run.scope(`${tool.name}: evaluate() after malformed calls`, async () => {
          verdictOf(env);
        });
        await subject.release(env);
      }
      await edgeCalls(run, tool, first, episode, subject, tally);
      noteTally(run, tally);
    },
  });
  const names = unknownToolNames(spec.tools);
  return [
    ...spec.tools.map(perTool),
    {
      name: "bad input: unknown tool names are invalid_argument",
      kind: "bad-input",
      ...(none ? { notCheckable: none } : {}),
      covers: `${names.length} names`,
      async run(run) {
        if (!first) return;
        const { env } = await episode(first);
        const tally = newTally();
        for (const [i, name] of names.entries()) {
          const action: Action = { tool: name, args: {}, callId: `u${i}` };
          await run.scope(`tool "${name.slice(0, 20)}"`, async (s: Scope) =>
            judge(s, await takeBadCall(s, env, action), tally, subject.badCallCodes),
          );
        }
        noteTally(run, tally);
      },
    },
  ];
}
