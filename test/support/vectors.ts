/**
 * An interpreter for a world's executable spec examples (`spec/<world>.vectors.json`).
 *
 * A vector is a list of tool calls sent to a freshly reset world, each with optional `expect`
 * (dot paths into the tool's JSON result → expected values), `bind` (name → dot path, to use the
 * value later as `$name`) and `repeat` (`{until, between?, max}`: re-send the step, sending `between`
 * before each retry, until `until` holds, at most `max` sends), then the verdict the world must reach.
 *
 * Placeholders: a string `"$name"` is replaced by the bound value; `"$a|$b"` takes the first
 * alternative that is bound and not null. Names start bound to the reset context (`$case_id`), and a
 * world may supply defaults (device-support: `$model`, `$address`). Dot paths take numeric indexes
 * (`replacements.0.request_id`) and `.length` of an array or string.
 */
import assert from "node:assert/strict";
import type { Environment, Observation, StepResult, ToolResult, Verdict } from "../../src/core/contracts.ts";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";

export interface VectorCall {
  tool: string;
  args?: JsonObject;
}

export interface VectorStep extends VectorCall {
  expect?: Record<string, JsonValue>;
  bind?: Record<string, string>;
  repeat?: { until: Record<string, JsonValue>; between?: VectorCall; max: number };
}

export interface Vector {
  name: string;
  family: string;
  difficulty?: number;
  steps: VectorStep[];
  verdict: { passed: boolean; violations: string[] };
}

export interface VectorFile {
  world: string;
  about: string;
  vectors: Vector[];
}

/** Default bindings a world supplies from its state after reset (e.g. the case's model and address). */
export type VectorDefaults = (env: Environment, context: JsonObject) => Record<string, JsonValue | undefined>;

export interface VectorRunOptions {
  seed: number;
  /** Defaults to the vector's own `difficulty`, else 1. */
  difficulty?: number;
  defaults?: VectorDefaults;
}

export interface VectorCallRecord {
  tool: string;
  args: JsonObject;
  result: ToolResult;
}

export interface VectorRun {
  verdict: Verdict;
  calls: VectorCallRecord[];
  bindings: Record<string, JsonValue | undefined>;
}

/** Reads a dot path (`a.0.b`, `list.length`) from a JSON value; `undefined` when it does not exist. */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const segment of path.split(".")) {
    if (current === null || current === undefined) return undefined;
    if (segment === "length" && (Array.isArray(current) || typeof current === "string")) {
      current = current.length;
    } else if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === "object") {
      current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

/** Replaces `$name` and `"$a|$b"` placeholders anywhere inside a JSON value. */
export function resolvePlaceholders(
  value: JsonValue,
  bindings: Record<string, JsonValue | undefined>,
): JsonValue {
  if (typeof value === "string") return resolveString(value, bindings);
  if (Array.isArray(value)) return value.map((v) => resolvePlaceholders(v, bindings));
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolvePlaceholders(v, bindings);
    return out;
  }
  return value;
}

function resolveString(text: string, bindings: Record<string, JsonValue | undefined>): JsonValue {
  if (!text.startsWith("$")) return text;
  const alternatives = text.split("|");
  for (const alt of alternatives) {
    if (!alt.startsWith("$")) return alt; // a literal fallback
    const bound = bindings[alt.slice(1)];
    if (bound !== undefined && bound !== null) return bound;
  }
  throw new Error(`placeholder ${text}: none of ${alternatives.join(", ")} is bound`);
}

/** The unmet parts of an `expect`/`until` table against a tool result (empty when it holds). */
export function mismatches(
  table: Record<string, JsonValue>,
  result: unknown,
  bindings: Record<string, JsonValue | undefined>,
): string[] {
  const out: string[] = [];
  for (const [path, want] of Object.entries(table)) {
    const expected = resolvePlaceholders(want, bindings);
    const actual = readPath(result, path);
    try {
      assert.deepStrictEqual(actual, expected);
    } catch {
      out.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    }
  }
  return out;
}

/**
 * Runs one vector against a fresh instance of `world` and checks every step's `expect`, the
 * `repeat` conditions and the verdict. Throws an AssertionError naming the step on the first mismatch.
 */
export async function runVector(
  world: WorldDefinition,
  vector: Vector,
  opts: VectorRunOptions,
): Promise<VectorRun> {
  const task = world.generateTask({
    family: vector.family,
    difficulty: opts.difficulty ?? vector.difficulty ?? 1,
    seed: opts.seed,
  });
  const env = world.create();
  const first = await env.reset({ task, seed: opts.seed });
  assert.equal(first.kind, "task", "reset must return the task observation");
  const context = (first as Extract<Observation, { kind: "task" }>).context;
  const bindings: Record<string, JsonValue | undefined> = {
    ...(opts.defaults?.(env, context) ?? {}),
    ...context,
  };
  const calls: VectorCallRecord[] = [];
  let last: StepResult | undefined;
  let callNo = 0;

  const send = async (call: VectorCall, where: string): Promise<ToolResult> => {
    const args = resolvePlaceholders(call.args ?? {}, bindings) as JsonObject;
    const callId = `v${callNo++}`;
    const result = await env.step({ tool: call.tool, args, callId });
    const obs = result.observation;
    assert.equal(obs.kind, "tool_result", `${where}: a step must answer with a tool_result observation`);
    if (obs.kind !== "tool_result") throw new Error("unreachable");
    assert.equal(obs.tool, call.tool, `${where}: the observation names another tool`);
    assert.equal(obs.callId, callId, `${where}: the observation does not echo the callId`);
    assert.equal(typeof obs.now, "number", `${where}: the observation carries no virtual time`);
    calls.push({ tool: call.tool, args, result: obs.result });
    last = result;
    return obs.result;
  };

  for (const [i, step] of vector.steps.entries()) {
    const where = `step ${i} (${step.tool})`;
    let result = await send(step, where);
    if (step.repeat) {
      const { until, between, max } = step.repeat;
      let sends = 1;
      while (mismatches(until, result, bindings).length > 0) {
        assert.ok(
          sends < max,
          `${where}: \`until\` ${JSON.stringify(until)} did not hold after ${max} sends; last result ${JSON.stringify(result)}`,
        );
        if (between) await send(between, `${where} (between)`);
        result = await send(step, `${where} (retry ${sends})`);
        sends++;
      }
    }
    const bad = step.expect ? mismatches(step.expect, result, bindings) : [];
    assert.deepEqual(
      bad,
      [],
      `${where} with args ${JSON.stringify(calls[calls.length - 1].args)}: ${bad.join("; ")}; result ${JSON.stringify(result)}`,
    );
    for (const [name, path] of Object.entries(step.bind ?? {})) {
      bindings[name] = readPath(result, path) as JsonValue | undefined;
    }
    const ended = last?.terminated === true || last?.truncated === true;
    if (ended && i < vector.steps.length - 1) {
      assert.fail(`${where}: the episode ended before the vector's last step`);
    }
  }
  const evaluated = env.evaluate();
  let verdict = evaluated;
  if (last?.terminated) {
    assert.ok(last.info.verdict, "the step that ends the episode carries the verdict in info.verdict");
    assert.deepStrictEqual(last.info.verdict, evaluated, "info.verdict and evaluate() disagree");
    verdict = last.info.verdict;
  }
  return { verdict, calls, bindings };
}

/** The distinct violation codes of a verdict, sorted. */
export function violationCodes(verdict: Verdict): string[] {
  return [...new Set(verdict.violations.map((v) => v.code))].sort();
}
