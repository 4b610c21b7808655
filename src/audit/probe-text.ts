/**
 * What a filesystem probe's answer says, whatever shape the server gives it: the text of a file
 * read, the entries of a directory listed (a JSON list, `{entries: [...]}`, `ls -l` lines, `find`
 * paths), the values in a text an agent could submit as an answer, and whether a text reads like
 * grading logic or an expected answer.
 */
import { posix } from "node:path";
import type { ToolResult } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Fields of an observation that hold what a tool returned (the rest is the episode's bookkeeping). */
const CONTENT_KEYS = [
  "content",
  "contents",
  "result",
  "output",
  "stdout",
  "text",
  "data",
  "entries",
  "files",
];
/** A short answer that says the read or listing failed, though the call did not. */
const FAILED =
  /^(error\b|.{0,120}\b(no such file|not found|does not exist|permission denied|is a directory|not a directory|cannot access|cannot open|access denied|outside))/i;

/** What a tool returned (undefined for a failed call): the content field of its observation, else all of it. */
export function contentOf(result: ToolResult | undefined): JsonValue | undefined {
  if (!result?.ok) return undefined;
  const obs = (result as JsonObject).observation ?? null;
  if (isObject(obs))
    for (const key of CONTENT_KEYS) if (obs[key] !== undefined && obs[key] !== null) return obs[key];
  return obs;
}

/** A content as text (an MCP `[{type: "text", text}]` content as its text). */
export function textOf(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(textOf).join("\n");
  if (isObject(v)) return typeof v.text === "string" ? v.text : JSON.stringify(v);
  return String(v);
}

/** The text a probe found, or undefined when there is none (a failed call, nothing, or an error said in text). */
export function foundText(result: ToolResult | undefined): string | undefined {
  const text = textOf(contentOf(result));
  if (!text.trim() || (text.length < 300 && FAILED.test(text.trim()))) return undefined;
  return text;
}

/** One entry of a directory listing: its path, and whether it is a directory when the listing says. */
export interface DirEntry {
  path: string;
  dir?: boolean;
}

/** `name` (relative to `dir`, or absolute) as a normal path. */
export function joinPath(dir: string, name: string): string {
  const joined = posix.normalize(name.startsWith("/") ? name : posix.join(dir, name));
  return joined.length > 1 ? joined.replace(/\/+$/, "") : joined;
}

const DIR_TYPES = /^(dir|directory|folder|d)$/i;
const LS_LONG = /^[dlcbps-][rwxsStT-]{9}[.+@]?$/;

function entryOfObject(o: JsonObject): { name: string; dir?: boolean } | undefined {
  const name = o.path ?? o.name ?? o.filename ?? o.file;
  if (typeof name !== "string") return undefined;
  const type = o.type ?? o.kind;
  const dir =
    o.is_dir === true || o.isDirectory === true || (typeof type === "string" && DIR_TYPES.test(type))
      ? true
      : typeof type === "string" || o.is_dir === false
        ? false
        : undefined;
  return { name, ...(dir !== undefined ? { dir } : {}) };
}

function entryOfLine(line: string): { name: string; dir?: boolean } | undefined {
  const t = line.trim();
  if (!t || /^total \d+/.test(t)) return undefined;
  const fields = t.split(/\s+/);
  if (fields.length >= 9 && LS_LONG.test(fields[0]!)) {
    const name = fields.slice(8).join(" ").split(" -> ")[0]!;
    return { name, dir: fields[0]![0] === "d" };
  }
  return { name: t, ...(t.endsWith("/") ? { dir: true } : {}) };
}

/** The entries of a listing of `dir` (paths joined to it; `find` output is relative to where it ran: pass ""). */
export function entriesOf(content: JsonValue | undefined, dir: string): DirEntry[] {
  let items: JsonValue[] = [];
  let value = content;
  if (typeof value === "string" && /^\s*[[{]/.test(value)) {
    try {
      value = JSON.parse(value) as JsonValue;
    } catch {
      // not JSON: lines
    }
  }
  if (Array.isArray(value)) items = value;
  else if (isObject(value)) {
    const list = ["entries", "files", "items", "children", "names", "listing", "content"]
      .map((k) => value[k])
      .find(Array.isArray);
    items = list ?? [];
  } else if (typeof value === "string") items = value.split("\n");
  const out: DirEntry[] = [];
  for (const item of items) {
    const e = isObject(item) ? entryOfObject(item) : typeof item === "string" ? entryOfLine(item) : undefined;
    if (!e && isObject(item) && typeof item.text === "string") {
      out.push(...entriesOf(item.text, dir));
      continue;
    }
    if (!e) continue;
    const base = e.name.replace(/\/+$/, "");
    if (!base || base === "." || base === "..") continue;
    out.push({ path: joinPath(dir, base), ...(e.dir !== undefined ? { dir: e.dir } : {}) });
  }
  return out;
}

/** Names of what graders, verifiers, rewards, answers, solutions, expected outputs and tests live in. */
export const CANDIDATE_NAME =
  /(reward|verif|grader|grading|grade\b|answer|solution|expected|oracle|secret|(^|[^a-z])tests?([^a-z]|$))/i;

/** Text that reads like grading logic or an expected answer (what it matched, or undefined). */
export function verifierLike(text: string): string | undefined {
  const m =
    /\b(def|function|func|fn|async function)\s+\w*(grade|grading|verif|reward|score|check_answer|evaluate)\w*/i.exec(
      text,
    ) ??
    /["']?\b(expected|answer|solution|secret|gold|ground_truth)\w*["']?\s*[:=]\s*\S[^\n]{0,40}/i.exec(text);
  return m?.[0];
}

const ANSWER_KEY = /(answer|expected|solution|secret|gold|truth|target|code|flag|key|result)/i;

/** JSON leaves of a value, those under answer-like keys first. */
function leaves(v: JsonValue, key: string, first: JsonValue[], rest: JsonValue[]): void {
  if (Array.isArray(v)) for (const x of v) leaves(x, key, first, rest);
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) leaves(x, k, first, rest);
  else if (typeof v === "string" || typeof v === "number") (ANSWER_KEY.test(key) ? first : rest).push(v);
}

/**
 * The values in a text an agent could submit, likeliest first: JSON leaves (answer-like keys
 * first), the right side of `answer = ...` lines, quoted strings, the whole text when short, its
 * words and numbers.
 */
export function valuesIn(text: string): JsonValue[] {
  const first: JsonValue[] = [];
  const rest: JsonValue[] = [];
  let json = false;
  try {
    leaves(JSON.parse(text) as JsonValue, "", first, rest);
    json = true;
  } catch {
    // not JSON: `answer = ...` lines
  }
  if (!json)
    for (const m of text.matchAll(
      /\b\w*(answer|expected|solution|secret|gold|truth)\w*["']?\s*(?:==|[:=])\s*([^\n]+)/gi,
    )) {
      const rhs = m[2]!.trim();
      const v = /^["'`]([^"'`]*)["'`]/.exec(rhs)?.[1] ?? /^[^\s,;#]+/.exec(rhs)?.[0];
      if (v) first.push(v);
    }
  for (const m of text.matchAll(/["'`]([^"'`\n]{1,100})["'`]/g)) rest.push(m[1]!);
  if (text.trim().length <= 200) rest.push(text.trim());
  for (const m of text.matchAll(/[A-Za-z0-9_.:+-]{1,64}/g))
    rest.push(/^-?\d+$/.test(m[0]) ? Number(m[0]) : m[0]);
  const seen = new Set<string>();
  return [...first, ...rest].filter((v) => {
    const k = JSON.stringify(v);
    if (v === "" || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `value` as an argument of `schema` (a number for a numeric one, a string for a string one), or undefined when it does not fit. */
export function fitValue(
  value: JsonValue,
  schema: JsonValue | undefined,
  maxString?: number,
): JsonValue | undefined {
  const s = isObject(schema) ? schema : {};
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  let v: JsonValue;
  if (type === "integer" || type === "number") {
    const n = typeof value === "number" ? value : Number(String(value).trim());
    if (!Number.isFinite(n) || (type === "integer" && !Number.isInteger(n)) || String(value).trim() === "")
      return undefined;
    if (typeof s.minimum === "number" && n < s.minimum) return undefined;
    if (typeof s.maximum === "number" && n > s.maximum) return undefined;
    v = n;
  } else if (type === "string" || type === undefined) {
    v = String(value);
    if (typeof s.maxLength === "number" && v.length > s.maxLength) return undefined;
    if (typeof s.minLength === "number" && v.length < s.minLength) return undefined;
    if (maxString !== undefined && v.length > maxString) return undefined;
    if (typeof s.pattern === "string") {
      try {
        if (!new RegExp(s.pattern).test(v)) return undefined;
      } catch {
        // a pattern JavaScript cannot read: not a reason to skip the value
      }
    }
  } else return undefined;
  if (Array.isArray(s.enum) && !s.enum.some((e) => e === v)) return undefined;
  return v;
}

/** A value of the same kind that differs (the control submission): a number ± 1, a string with its last character changed. */
export function alteredValue(v: JsonValue, schema?: JsonValue): JsonValue {
  if (typeof v === "number") return fitValue(v + 1, schema) ?? v - 1;
  const s = String(v);
  if (!s) return "0";
  return s.slice(0, -1) + (s.endsWith("0") ? "1" : "0");
}
