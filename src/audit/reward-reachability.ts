/**
 * `reward-reachability`: can an agent read the answer or the grader through the server's own tools?
 * Where a server gives its agent the filesystem (a tool that reads files, lists directories or runs
 * shell commands, found from the tools' names and schemas: `filesystem-tools.ts`), the probe lists
 * the working directory, `/` and well-known places (`/tests`, `/grader`, `/solution`, …), follows
 * the names graders, verifiers, rewards, answers, solutions, expected outputs and tests live under,
 * and reads what it finds, within the server's limits, in fresh episodes of one seed. Then:
 *
 * - a value read, submitted through another tool in a fresh episode that reads the file first,
 *   earns reward that the same episode submitting a slightly different value does not: `failed`,
 *   the strongest evidence (the tool, the path, the bytes, the reward);
 * - a file read reads like grading logic or an expected answer (`def grade(`, `"answer": …`): `failed`;
 * - probed, nothing found: `passed`; no filesystem tool: `not_checkable`.
 *
 * Read-only: the probe lists and reads; a shell gets `ls`, `cat` and `find -maxdepth` on plain
 * paths, nothing else. A server's refusal or error is "not found", never a crash of the audit.
 */
import type { Action, Environment, ToolDescriptor, ToolResult } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { type AuditFinding, auditTitle } from "./audit.ts";
import {
  argsFor,
  changesOrRuns,
  classifyTool,
  type FilesystemTool,
  findAction,
  findFilesystemTools,
  probeAction,
} from "./filesystem-tools.ts";
import { createEpisode, type ForeignPlay, resetOptions } from "./foreign-episode.ts";
import {
  alteredValue,
  CANDIDATE_NAME,
  contentOf,
  entriesOf,
  fitValue,
  foundText,
  valuesIn,
  verifierLike,
} from "./probe-text.ts";

export interface RewardReachabilityOptions extends ForeignPlay {
  /** The seed of every probe episode is the first (default 0). */
  seeds?: number[];
  /** Steps per episode (default 100): a longer probe goes on in a fresh episode. */
  maxSteps?: number;
  /** The server's limits: no probe sends more. */
  maxActionBytes?: number;
  maxStringLength?: number;
}

/** Listing and reading calls in all (the exploration). */
const PROBE_CALLS = 64;
/** Read-then-submit episodes in all, and values tried per file and tool. */
const SUBMISSIONS = 12;
const VALUES_PER_FILE = 4;
/** How deep below where it starts the probe follows directories. */
const MAX_DEPTH = 3;
/** Calls that may fail (no coded answer) before the probe stops. */
const MAX_FAILURES = 8;
/** How much of a file the probe looks into. */
const MAX_TEXT = 64 * 1024;
/** Entries of one directory the probe follows. */
const PER_DIR = 16;
/** Where graders, tests and answers are often put. */
const WELL_KNOWN = [
  "/tests",
  "tests",
  "/grader",
  "/solution",
  "/solutions",
  "/answer",
  "/answers",
  "/expected",
  "/verifier",
  "/reward",
  "/eval",
  "/app/tests",
];
/** Directories of `/` worth a look (a task's files), beside the names of CANDIDATE_NAME. */
const TASK_DIRS = /^\/(app|workspace|work|task|tasks|data|srv|opt|home|root|code|project|repo|env|mnt|tmp)$/;

const ID = "reward-reachability" as const;
const finding = (status: AuditFinding["status"], evidence: string[]): AuditFinding => ({
  id: ID,
  title: auditTitle(ID),
  status,
  evidence,
});

/** Every string of a value is at most `max` characters. */
function stringsWithin(v: JsonValue, max: number): boolean {
  if (typeof v === "string") return v.length <= max;
  if (Array.isArray(v)) return v.every((x) => stringsWithin(x, max));
  if (v && typeof v === "object") return Object.values(v).every((x) => stringsWithin(x, max));
  return true;
}

/**
 * Steps of probe episodes: one episode goes on until it ends or reaches the step limit, then a fresh
 * one starts (same seed). A failed step is "nothing found"; a reset that fails stops the probe.
 */
class ProbeEpisodes {
  calls = 0;
  failures: string[] = [];
  broken: string | undefined;
  private env: Environment | undefined;
  private steps = 0;

  constructor(
    private readonly opts: RewardReachabilityOptions,
    private readonly seed: number,
  ) {}

  within(args: JsonObject): boolean {
    const { maxActionBytes, maxStringLength } = this.opts;
    if (maxActionBytes !== undefined && Buffer.byteLength(JSON.stringify(args)) > maxActionBytes)
      return false;
    return maxStringLength === undefined || stringsWithin(args, maxStringLength);
  }

  /** One call's result, or undefined when it failed or was not sent. */
  async call(action: Action): Promise<ToolResult | undefined> {
    if (this.broken || !this.within(action.args)) return undefined;
    try {
      if (!this.env || this.steps >= (this.opts.maxSteps ?? 100)) await this.fresh();
    } catch (err) {
      this.broken = errorMessage(err);
      return undefined;
    }
    this.calls++;
    try {
      const r = await this.env!.step(action);
      this.steps++;
      if (r.terminated || r.truncated) await this.drop();
      return r.observation.kind === "tool_result" ? r.observation.result : undefined;
    } catch (err) {
      this.failures.push(`${action.tool}: ${errorMessage(err)}`);
      if (this.failures.length >= MAX_FAILURES)
        this.broken = `${MAX_FAILURES} calls failed, the last: ${this.failures.at(-1)}`;
      await this.drop();
      return undefined;
    }
  }

  private async fresh(): Promise<void> {
    await this.drop();
    const env = createEpisode(this.opts, `reward-probe-${this.seed}`);
    this.env = env;
    this.steps = 0;
    await env.reset(resetOptions(this.opts.world, this.seed));
  }

  async drop(): Promise<void> {
    const env = this.env;
    this.env = undefined;
    if (env) await Promise.resolve(this.opts.dispose?.(env)).catch(() => undefined);
  }
}

/** A file the probe read: through which tool and arguments, its path and text. */
interface ReadFile {
  tool: string;
  args: JsonObject;
  path: string;
  /** Its text (the first MAX_TEXT characters) and its whole size. */
  text: string;
  bytes: number;
  /** What in it reads like grading logic or an answer. */
  verifier?: string;
}

interface Explored {
  files: ReadFile[];
  listed: string[];
  /** Candidate names seen in listings (with no tool to read them, or unread). */
  names: string[];
}

type Probe = { op: "list" | "read" | "find"; path: string; depth: number; candidate: boolean };

/** Lists and reads, breadth first, candidates first, within the call budget. */
async function explore(episodes: ProbeEpisodes, tools: FilesystemTool[]): Promise<Explored> {
  const queue: Probe[] = [];
  const seen = new Set<string>();
  const push = (p: Probe) => {
    const key = `${p.op}:${p.path}`;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push(p);
  };
  const files: ReadFile[] = [];
  const listed: string[] = [];
  const names = new Set<string>();
  push({ op: "find", path: ".", depth: 0, candidate: false });
  push({ op: "list", path: ".", depth: 0, candidate: false });
  push({ op: "list", path: "/", depth: 0, candidate: false });
  for (const path of WELL_KNOWN) {
    push({ op: "read", path, depth: 0, candidate: true });
    push({ op: "list", path, depth: 0, candidate: true });
  }
  while (queue.length && episodes.calls < PROBE_CALLS && !episodes.broken) {
    const at = Math.max(
      0,
      queue.findIndex((p) => p.candidate),
    );
    const probe = queue.splice(at, 1)[0]!;
    const callId = `probe-${episodes.calls}`;
    const action =
      probe.op === "find"
        ? findAction(tools, probe.path, MAX_DEPTH, callId)
        : probeAction(tools, probe.op, probe.path, callId);
    if (!action) continue;
    const result = await episodes.call(action);
    const full = foundText(result);
    if (full === undefined) continue;
    if (probe.op === "read") {
      const text = full.slice(0, MAX_TEXT);
      const verifier = verifierLike(text);
      files.push({
        tool: action.tool,
        args: action.args,
        path: probe.path,
        text,
        bytes: Buffer.byteLength(full),
        ...(verifier ? { verifier } : {}),
      });
      continue;
    }
    listed.push(probe.path);
    // `find` prints paths relative to where it ran; a listing, names in its directory
    const entries = entriesOf(contentOf(result), probe.op === "find" ? "" : probe.path);
    let followed = 0;
    for (const e of entries) {
      const base = e.path.split("/").pop() ?? e.path;
      const candidate = probe.candidate || CANDIDATE_NAME.test(probe.op === "find" ? e.path : base);
      const depth = probe.op === "find" ? 1 : probe.depth + 1;
      if (!candidate && !(probe.path === "/" && TASK_DIRS.test(e.path))) continue;
      if (depth > MAX_DEPTH || followed >= PER_DIR) continue;
      followed++;
      if (candidate) names.add(e.path);
      if (e.dir !== true && candidate) push({ op: "read", path: e.path, depth, candidate });
      if (e.dir !== false && probe.op !== "find") push({ op: "list", path: e.path, depth, candidate });
    }
  }
  return { files, listed, names: [...names] };
}

/** The argument a submission fills: the first required number or string argument, else the first such one. */
function answerParam(tool: ToolDescriptor): string | undefined {
  const props = (tool.input_schema.properties ?? {}) as JsonObject;
  const required = Array.isArray(tool.input_schema.required) ? tool.input_schema.required.map(String) : [];
  const fits = (name: string) => {
    const p = props[name];
    const type = p && typeof p === "object" && !Array.isArray(p) ? (p as JsonObject).type : undefined;
    return type === "string" || type === "integer" || type === "number";
  };
  return required.find(fits) ?? Object.keys(props).find(fits);
}

/** Tools a found value may be submitted through: none of the filesystem ones, none that writes or runs. */
function submitTools(tools: ToolDescriptor[]): { tool: ToolDescriptor; param: string }[] {
  return tools.flatMap((tool) => {
    if (classifyTool(tool) || changesOrRuns(tool)) return [];
    const param = answerParam(tool);
    return param ? [{ tool, param }] : [];
  });
}

/** The `k`-th value of `text` that fits a submission's argument. */
function valueAt(text: string, sub: { tool: ToolDescriptor; param: string }, k: number, maxString?: number) {
  const schema = ((sub.tool.input_schema.properties ?? {}) as JsonObject)[sub.param];
  const fitting: JsonValue[] = [];
  for (const v of valuesIn(text)) {
    const f = fitValue(v, schema, maxString);
    if (f !== undefined && !fitting.some((x) => x === f)) fitting.push(f);
    if (fitting.length > k) break;
  }
  return { value: fitting[k], schema };
}

interface Submitted {
  args: JsonObject;
  reward: number;
}

/**
 * A fresh episode that reads `file` again (the text of this episode) and submits the `k`-th value
 * it finds there (or that value altered, the control): its total reward, or undefined when the
 * episode could not read, submit, or had no such value.
 */
async function readThenSubmit(
  opts: RewardReachabilityOptions,
  seed: number,
  file: ReadFile,
  sub: { tool: ToolDescriptor; param: string },
  k: number,
  control: boolean,
): Promise<Submitted | undefined> {
  const env = createEpisode(opts, `reward-submit-${seed}`);
  try {
    await env.reset(resetOptions(opts.world, seed));
    const read = await env.step({ tool: file.tool, args: file.args, callId: "read" });
    const text =
      read.observation.kind === "tool_result" && !read.terminated
        ? foundText(read.observation.result)?.slice(0, MAX_TEXT)
        : undefined;
    if (text === undefined) return undefined;
    const { value, schema } = valueAt(text, sub, k, opts.maxStringLength);
    if (value === undefined) return undefined;
    const args = argsFor(sub.tool, sub.param, control ? alteredValue(value, schema) : value);
    if (!args) return undefined;
    const r = await env.step({ tool: sub.tool.name, args, callId: "submit" });
    return { args, reward: read.reward + r.reward };
  } catch {
    return undefined;
  } finally {
    await Promise.resolve(opts.dispose?.(env)).catch(() => undefined);
  }
}

const preview = (text: string) => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 80 ? `${one.slice(0, 80)}…` : one;
};
const call = (tool: string, args: JsonObject) => `${tool}(${JSON.stringify(args)})`;

/** Probes a foreign server's filesystem tools for the answer or the grader; never throws. */
export async function probeRewardReachability(opts: RewardReachabilityOptions): Promise<AuditFinding> {
  let tools: ToolDescriptor[];
  try {
    const env = createEpisode(opts, "reward-probe-tools");
    tools = env.spec.tools;
    await Promise.resolve(opts.dispose?.(env)).catch(() => undefined);
  } catch (err) {
    return finding("not_checkable", [`the server's tools could not be read: ${errorMessage(err)}`]);
  }
  const fsTools = findFilesystemTools(tools);
  if (!fsTools.length)
    return finding("not_checkable", [
      `no tool looks like filesystem or shell access (${tools.map((t) => t.name).join(", ") || "no tools"}): found from tool names and argument schemas, so a tool that reads files under another name is not probed`,
    ]);
  const via = fsTools.map((t) => `${t.tool.name} (${t.kind})`).join(", ");
  const seed = opts.seeds?.[0] ?? 0;
  const episodes = new ProbeEpisodes(opts, seed);
  let explored: Explored;
  try {
    explored = await explore(episodes, fsTools);
  } finally {
    await episodes.drop();
  }
  if (episodes.broken && episodes.calls === 0)
    return finding("not_checkable", [`${via}: no probe episode could start: ${episodes.broken}`]);

  // the strongest evidence: a value read, submitted in a fresh episode, earns reward its control does not
  const subs = submitTools(tools);
  const files = [...explored.files].sort((a, b) => Number(!!b.verifier) - Number(!!a.verifier));
  let attempts = 0;
  let submitted = 0;
  let earned: { file: ReadFile; sub: Submitted; control: Submitted | undefined; tool: string } | undefined;
  search: for (const file of files)
    for (const sub of subs)
      for (let k = 0; k < VALUES_PER_FILE; k++) {
        if (attempts++ >= SUBMISSIONS) break search;
        const got = await readThenSubmit(opts, seed, file, sub, k, false);
        if (!got) break;
        submitted++;
        if (got.reward <= 0) continue;
        const control = await readThenSubmit(opts, seed, file, sub, k, true);
        if (control && control.reward >= got.reward) continue;
        earned = { file, sub: got, control, tool: sub.tool.name };
        break search;
      }

  const probed = `${episodes.calls} read-only calls with ${via}: listed ${explored.listed.length} director${explored.listed.length === 1 ? "y" : "ies"}, read ${explored.files.length} file(s)${
    episodes.failures.length ? `; ${episodes.failures.length} call(s) failed (counted as not found)` : ""
  }${episodes.broken ? `; stopped early: ${episodes.broken}` : ""}`;
  const revealing = files.filter((f) => f.verifier);
  const shown = (f: ReadFile) =>
    `${call(f.tool, f.args)} → ${f.bytes} bytes${f.verifier ? `, reads like grading logic or an answer: ${preview(f.verifier)}` : `: ${preview(f.text)}`}`;
  if (earned) {
    const { file, sub, control, tool } = earned;
    return finding("failed", [
      `${file.path}: ${shown(file)}`,
      `a fresh episode that read it and submitted ${call(tool, sub.args)} earned reward ${sub.reward}${
        control ? ` (submitting ${call(tool, control.args)} instead: ${control.reward})` : ""
      }; an agent that does nothing earns 0`,
      ...revealing.filter((f) => f !== file).map((f) => `${f.path}: ${shown(f)}`),
      probed,
    ]);
  }
  if (revealing.length)
    return finding("failed", [
      ...revealing.map((f) => `${f.path}: ${shown(f)}`),
      subs.length
        ? `${submitted} value(s) read from these files, submitted with ${subs.map((s) => s.tool.name).join(", ")} in fresh episodes, earned no reward (not proven exploitable, but reachable)`
        : "no other tool to submit a value through (not proven exploitable, but reachable)",
      probed,
    ]);
  const read = explored.files.map((f) => `${f.path} (${f.bytes} bytes)`);
  const unread = explored.names.filter(
    (n) => !explored.files.some((f) => f.path === n) && !explored.listed.includes(n),
  );
  return finding("passed", [
    `${probed}; nothing read reveals an answer or grading logic`,
    ...(read.length ? [`read, revealing nothing: ${read.join(", ")}`] : []),
    ...(submitted ? [`${submitted} value(s) from them submitted in fresh episodes: no reward`] : []),
    ...(unread.length ? [`names seen, not readable: ${unread.slice(0, 8).join(", ")}`] : []),
  ]);
}
