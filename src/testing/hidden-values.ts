/**
 * What the `hidden` check looks for in observations: every value under a world's declared
 * `hiddenParams`, of any length and type — whole JSON values, short strings (3 characters or more,
 * as a word of their own), numbers (two digits or more, as a number of their own), the lines of
 * long texts — and their simple encodings: any letter case, reversed, base64, and digits written
 * apart ("6-8", "6 8") or spelled ("six eight"). A value the task shows openly (outside the hidden
 * params, or in the instruction) is no secret and is not looked for; nor is what matches such text.
 */
import type { Task } from "../core/contracts.ts";
import type { WorldDefinition } from "../core/registry.ts";

/** One hidden value and a way it could be written in an observation. */
export interface HiddenNeedle {
  /** The hidden value, cut for a report. */
  value: string;
  /** How it was written: `as is`, `reversed`, `base64`, `digits apart`, `digits spelled`. */
  how: string;
  /** Where `text` holds it (-1: nowhere). */
  at(text: string): number;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
/** Text as it reads inside a JSON string (observations are searched as JSON). */
const inJson = (s: string) => JSON.stringify(s).slice(1, -1);

/** A word of its own: not inside a longer run of letters and digits. */
function word(needle: string, flags = "i"): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(inJson(needle))}(?![\\p{L}\\p{N}])`, `u${flags}`);
}

function base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/=+$/, "");
}

/** The ways digits written apart or spelled can carry `digits` (3 or more). */
function digitNeedles(value: string, digits: string): HiddenNeedle[] {
  const sep = "[\\s\\-_.,/|:]{1,3}";
  const apart = new RegExp(`(?<!\\d)${[...digits].join(sep)}(?!\\d)`);
  const spelled = new RegExp(
    `(?<![a-z])${[...digits].map((d) => DIGIT_WORDS[Number(d)]).join("[\\s\\-_,]*")}(?![a-z])`,
    "i",
  );
  return [
    { value, how: "digits apart", at: (t) => t.search(apart) },
    { value, how: "digits spelled", at: (t) => t.search(spelled) },
  ];
}

function stringNeedles(s: string): HiddenNeedle[] {
  const value = s.trim();
  if (value.length > 64) {
    // a long text: its lines, as they are
    return value
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.length >= 12)
      .map((l) => ({ value: l, how: "as is", at: (t: string) => t.indexOf(inJson(l)) }));
  }
  if (value.length < 3) return [];
  const out: HiddenNeedle[] = [];
  const plain = word(value);
  out.push({ value, how: "as is", at: (t) => t.search(plain) });
  const reversed = [...value].reverse().join("");
  if (value.length >= 4 && reversed.toLowerCase() !== value.toLowerCase()) {
    const r = word(reversed);
    out.push({ value, how: "reversed", at: (t) => t.search(r) });
  }
  const b64 = base64(value);
  out.push({ value, how: "base64", at: (t) => t.indexOf(b64) });
  const digits = value.replace(/\D/g, "");
  if (digits.length >= 3) out.push(...digitNeedles(value, digits));
  return out;
}

function numberNeedles(n: number): HiddenNeedle[] {
  if (!Number.isFinite(n) || (Number.isInteger(n) && Math.abs(n) < 10)) return [];
  const value = String(n);
  const token = new RegExp(`(?<![\\p{L}\\p{N}.])${escapeRe(value)}(?![\\p{N}]|\\.\\d)`, "u");
  const out: HiddenNeedle[] = [{ value, how: "as is", at: (t) => t.search(token) }];
  const digits = value.replace(/\D/g, "");
  if (digits.length >= 3) {
    const b64 = base64(value);
    out.push({ value, how: "base64", at: (t) => t.indexOf(b64) }, ...digitNeedles(value, digits));
  }
  return out;
}

/** Every needle of one hidden value: the whole value as JSON, and each of its leaves. */
function needlesOf(v: unknown, out: HiddenNeedle[]): void {
  if (typeof v === "string") out.push(...stringNeedles(v));
  else if (typeof v === "number") out.push(...numberNeedles(v));
  else if (v && typeof v === "object") {
    const json = JSON.stringify(v);
    if (json.length >= 8 && json !== "{}" && json !== "[]")
      out.push({ value: json, how: "as is", at: (t) => Math.max(t.indexOf(json), t.indexOf(inJson(json))) });
    for (const x of Array.isArray(v) ? v : Object.values(v)) needlesOf(x, out);
  }
}

/**
 * The needles of a task's hidden values (its declared `hiddenParams`), plus its content hash and
 * its verifier id; none that finds itself in what the task shows openly (the other params, the
 * instruction).
 */
export function hiddenNeedles(world: WorldDefinition, task: Task): HiddenNeedle[] {
  const params = task.params as Record<string, unknown>;
  const hiddenKeys = world.hiddenParams ?? [];
  const out: HiddenNeedle[] = [];
  for (const key of hiddenKeys) if (key in params) needlesOf(params[key], out);
  const open = [
    JSON.stringify(Object.fromEntries(Object.entries(params).filter(([k]) => !hiddenKeys.includes(k)))),
    JSON.stringify(task.instruction),
  ].join("\n");
  const secret = out.filter((n) => n.at(open) < 0);
  const seen = new Set<string>();
  const unique = secret.filter((n) => {
    const key = `${n.how}\u0000${n.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  for (const exact of [task.generator.contentHash, world.verifier])
    unique.push({ value: exact, how: "as is", at: (t) => t.indexOf(exact) });
  return unique;
}

/** The clock and the call ids of an observation's JSON: every world shows them, hidden or not. */
const CLOCK_AND_IDS = /"(?:now|callId|episodeId|step|t)":(?:"[^"]*"|-?\d+(?:\.\d+)?)/g;

/** The first needle `text` holds, described for a report (`"68" (digits apart) in …`), or undefined. */
export function findHidden(needles: readonly HiddenNeedle[], observed: string): string | undefined {
  const text = observed.replace(CLOCK_AND_IDS, "");
  for (const n of needles) {
    const at = n.at(text);
    if (at < 0) continue;
    const near = text.slice(Math.max(0, at - 30), at + 40);
    return `"${n.value.slice(0, 60)}"${n.how === "as is" ? "" : ` (${n.how})`} in …${near}…`;
  }
  return undefined;
}
