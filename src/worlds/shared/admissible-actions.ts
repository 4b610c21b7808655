import type { AdmissibleAction, AdmissibleCanonicalForm, ToolDescriptor } from "../../core/contracts.ts";
import { MAX_ADMISSIBLE_ACTIONS } from "../../core/contracts.ts";
import { canonicalJson } from "../../core/hash.ts";
import type { JsonObject, JsonValue } from "../../core/json.ts";
import type { SeenScalar, SeenValues } from "./seen-values.ts";

/**
 * How one argument is filled in an admissible-actions list (a world declares it for the arguments
 * the defaults cannot fill; see `AdmissibleSpec.args`).
 * - `from`: the values observations showed under these field names (and that the agent sent under
 *   the argument's own name), most recent first, at most `limit` (default 6).
 * - `text`: free text: the list carries this one text; canonicalisation maps any text to it.
 * - `values`: these fixed values.
 * - `build`: values built from what was seen (e.g. message templates); compared exactly.
 * - `none`: never filled (an optional argument the list always leaves out).
 */
export type ArgSource =
  | { from: readonly string[]; limit?: number }
  | { text: string }
  | { values: readonly JsonValue[] }
  | { build: (seen: SeenValues) => readonly JsonValue[] }
  | { none: true };

/** What a world declares about its admissible actions: little; the defaults cover ids, enums and keys. */
export interface AdmissibleSpec {
  /**
   * Sources of arguments, by `tool.arg` or by `arg` (for every tool). An argument with no source is
   * filled by its JSON Schema: an enum gives each value, a boolean both, an idempotency key the
   * agent's earlier keys (and a fresh one when the argument is required), an array of strings the
   * empty list, each key the agent sent and all of them; anything else the values shown under its
   * own name.
   */
  args?: Readonly<Record<string, ArgSource>>;
  /** Whole calls of a tool, when its arguments go together (a path and the patch of that file). */
  calls?: Readonly<Record<string, (seen: SeenValues) => readonly JsonObject[]>>;
  /** Arguments that are idempotency keys (default `idempotency_key`). */
  keyArgs?: readonly string[];
  /** Most calls of one tool in the list (default 24). */
  perTool?: number;
}

/** A fresh idempotency key in a list is `key-<n>`, n one more than any `key-<n>` seen or sent. */
export const FRESH_KEY_PREFIX = "key-";

/** The wait durations every list offers (those the scripted policies use), plus a `retry_after` just shown. */
export const DEFAULT_WAITS: readonly number[] = [5, 10, 15, 20, 25, 30, 60, 120, 240, 480, 600];

const ABSENT = Symbol("absent");
type Candidate = JsonValue | typeof ABSENT;

interface PropSchema {
  type?: string;
  enum?: JsonValue[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: { type?: string };
}

const keyArgsOf = (spec: AdmissibleSpec) => spec.keyArgs ?? ["idempotency_key"];

function sourceOf(spec: AdmissibleSpec, tool: string, arg: string): ArgSource | undefined {
  return spec.args?.[`${tool}.${arg}`] ?? spec.args?.[arg];
}

/** Every idempotency key the agent sent or an observation showed, most recent first. */
function knownKeys(seen: SeenValues, keyArgs: readonly string[]): SeenScalar[] {
  const out: SeenScalar[] = [];
  for (const k of keyArgs)
    for (const v of [...seen.sent(k), ...seen.values(k)]) if (!out.includes(v)) out.push(v);
  return out;
}

/** The fresh key of a list: `key-<n>` with n above every `key-<n>` the agent sent or saw. */
export function freshKey(seen: SeenValues, keyArgs: readonly string[] = ["idempotency_key"]): string {
  let n = 0;
  for (const k of knownKeys(seen, keyArgs)) {
    const m = typeof k === "string" && k.startsWith(FRESH_KEY_PREFIX) ? Number(k.slice(4)) : Number.NaN;
    if (Number.isInteger(m) && m > n) n = m;
  }
  return `${FRESH_KEY_PREFIX}${n + 1}`;
}

/** Whether a value meets the parts of a property's JSON Schema the defaults can produce. */
function fits(schema: PropSchema, value: JsonValue): boolean {
  if (schema.enum && !schema.enum.some((e) => e === value)) return false;
  switch (schema.type) {
    case "string":
      return (
        typeof value === "string" &&
        value.length >= (schema.minLength ?? 0) &&
        value.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY)
      );
    case "integer":
    case "number":
      return (
        typeof value === "number" &&
        (schema.type === "number" || Number.isInteger(value)) &&
        value >= (schema.minimum ?? Number.NEGATIVE_INFINITY) &&
        value <= (schema.maximum ?? Number.POSITIVE_INFINITY)
      );
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return (
        Array.isArray(value) && (schema.items?.type !== "string" || value.every((v) => typeof v === "string"))
      );
    default:
      return true;
  }
}

function dedupe(values: readonly JsonValue[]): JsonValue[] {
  const seenText = new Set<string>();
  const out: JsonValue[] = [];
  for (const v of values) {
    const text = canonicalJson(v);
    if (!seenText.has(text)) {
      seenText.add(text);
      out.push(v);
    }
  }
  return out;
}

/** The values an argument may take now (before the optional "left out"). */
function argValues(
  tool: string,
  arg: string,
  schema: PropSchema,
  required: boolean,
  seen: SeenValues,
  spec: AdmissibleSpec,
): JsonValue[] {
  const source = sourceOf(spec, tool, arg);
  const keyArgs = keyArgsOf(spec);
  let values: readonly JsonValue[];
  if (source && "none" in source) values = [];
  else if (source && "text" in source) values = [source.text];
  else if (source && "values" in source) values = source.values;
  else if (source && "build" in source) values = source.build(seen);
  else if (source && "from" in source) {
    const all: SeenScalar[] = [];
    for (const k of source.from) all.push(...seen.values(k));
    all.push(...seen.sent(arg));
    values = dedupe(all).slice(0, source.limit ?? 6);
  } else if (schema.enum) values = schema.enum;
  else if (schema.type === "boolean") values = [true, false];
  else if (keyArgs.includes(arg)) {
    const known = knownKeys(seen, keyArgs).slice(0, 4);
    values = required ? [...known, freshKey(seen, keyArgs)] : known;
  } else if (schema.type === "array") {
    const keys = knownKeys(seen, keyArgs).slice(0, 3);
    values = [[], ...keys.map((k) => [k]), ...(keys.length > 1 ? [keys] : [])];
  } else values = dedupe([...seen.values(arg), ...seen.sent(arg)]).slice(0, 6);
  return dedupe(values).filter((v) => fits(schema, v));
}

/** The cartesian product of the arguments' candidates, in property order (left out: the key is absent). */
function product(props: [string, Candidate[]][]): JsonObject[] {
  let out: JsonObject[] = [{}];
  for (const [name, candidates] of props) {
    const next: JsonObject[] = [];
    for (const partial of out) {
      for (const c of candidates) next.push(c === ABSENT ? partial : { ...partial, [name]: c });
    }
    out = next;
  }
  return out;
}

/** The calls of one tool that could be made now (at most `limit`), each accepted by `valid`. */
function toolCalls(
  tool: ToolDescriptor,
  seen: SeenValues,
  spec: AdmissibleSpec,
  valid: (tool: string, args: JsonObject) => boolean,
  limit: number,
): JsonObject[] {
  const whole = spec.calls?.[tool.name];
  let calls: readonly JsonObject[];
  if (whole) calls = whole(seen);
  else {
    const schema = tool.input_schema as { properties?: Record<string, PropSchema>; required?: string[] };
    const required = new Set(schema.required ?? []);
    const props: [string, Candidate[]][] = [];
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const values: Candidate[] = argValues(tool.name, name, prop, required.has(name), seen, spec);
      if (required.has(name)) {
        if (values.length === 0) return [];
      } else values.push(ABSENT);
      props.push([name, values]);
    }
    calls = product(props);
  }
  const out: JsonObject[] = [];
  for (const args of calls) {
    if (out.length >= limit) break;
    if (valid(tool.name, args)) out.push(args);
  }
  return out;
}

/**
 * The admissible actions of a tool world now, from its tools' JSON Schemas, what the agent has seen
 * (`seen`) and the world's few declarations (`spec`): every tool's calls in the tools' order, each
 * accepted by `valid` (the world's own argument check). When there are more than
 * `MAX_ADMISSIBLE_ACTIONS`, each tool keeps its first calls, taken round-robin in the tools' order.
 */
export function admissibleCalls(
  tools: readonly ToolDescriptor[],
  seen: SeenValues,
  spec: AdmissibleSpec,
  valid: (tool: string, args: JsonObject) => boolean,
): AdmissibleAction[] {
  const perTool = tools.map((t) => toolCalls(t, seen, spec, valid, spec.perTool ?? 24));
  const total = perTool.reduce((n, calls) => n + calls.length, 0);
  const keep = perTool.map((calls) => calls.length);
  if (total > MAX_ADMISSIBLE_ACTIONS) {
    keep.fill(0);
    for (let taken = 0, round = 0; taken < MAX_ADMISSIBLE_ACTIONS; round++) {
      for (let i = 0; i < perTool.length && taken < MAX_ADMISSIBLE_ACTIONS; i++) {
        if (perTool[i].length > round) {
          keep[i]++;
          taken++;
        }
      }
    }
  }
  const out: AdmissibleAction[] = [];
  tools.forEach((t, i) => {
    for (const args of perTool[i].slice(0, keep[i])) out.push({ tool: t.name, args });
  });
  return out;
}

/** `wait.seconds`: the default durations, and the `retry_after` of the last answer (rounded up). */
export function waitDurations(seen: SeenValues): number[] {
  const last = seen.last;
  const after = last && !last.ok ? (last.error as unknown as JsonObject).retry_after : undefined;
  const extra = typeof after === "number" ? [Math.min(3600, Math.max(1, Math.ceil(after)))] : [];
  return [...new Set([...DEFAULT_WAITS, ...extra])].sort((a, b) => a - b);
}

/** The canonical form of a spec: its key arguments and the texts of its `text` sources. */
export function canonicalFormOf(spec: AdmissibleSpec): AdmissibleCanonicalForm {
  const texts: Record<string, string> = {};
  for (const [name, source] of Object.entries(spec.args ?? {}))
    if ("text" in source) texts[name] = source.text;
  return { keyArgs: [...keyArgsOf(spec)], texts };
}

/**
 * How a list spells an action (the canonicalisation the conformance check applies before it looks
 * the action up): an idempotency key the list does not offer for that tool (the agent generated it
 * now) becomes the list's fresh key `key-<n>`; a free-text argument (a `text` source) becomes the
 * list's text. Everything else is compared exactly: ids, enums, amounts, wait durations, texts the
 * world builds from what was seen. An admissible action canonicalises to an entry of the list. Takes
 * the list and the world's form only, so a client of a served world spells actions the same way.
 */
export function canonicalAdmissible(
  action: { tool: string; args: JsonObject },
  list: readonly AdmissibleAction[],
  form: AdmissibleCanonicalForm,
): AdmissibleAction {
  const args: JsonObject = { ...action.args };
  const same = list.filter((a) => a.tool === action.tool);
  for (const [name, value] of Object.entries(args)) {
    const text = form.texts[`${action.tool}.${name}`] ?? form.texts[name];
    if (text !== undefined) args[name] = text;
    else if (form.keyArgs.includes(name)) {
      const offered = same.map((a) => a.args[name]).filter((v) => v !== undefined);
      if (!offered.includes(value)) {
        const fresh = offered.filter(
          (v): v is string => typeof v === "string" && v.startsWith(FRESH_KEY_PREFIX),
        );
        fresh.sort((a, b) => Number(b.slice(4)) - Number(a.slice(4)));
        if (fresh[0] !== undefined) args[name] = fresh[0];
      }
    }
  }
  return { tool: action.tool, args };
}

/** Whether `action` (canonicalised by the caller) is an entry of `list`. */
export function inAdmissible(action: AdmissibleAction, list: readonly AdmissibleAction[]): boolean {
  const text = canonicalJson(action);
  return list.some((a) => canonicalJson(a) === text);
}
