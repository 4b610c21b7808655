/**
 * The rule-based inducer (offline, deterministic): reads trajectories as a black box and turns what
 * went wrong, and what worked, into skills in words (the pattern it matched is recorded in
 * `extra.pattern`, for people; agents get the text).
 *
 * From failures, by the verifier's violation codes: `duplicate_*` after a retried write →
 * reconcile after a timeout (look the write up by its key, retry only with the same key);
 * `unauthorized_write_attempt` → approval first; `conditions_violated` → follow the approval's
 * conditions; `unsupported_claim` / `false_claim` → confirm before claiming. From successes: a write
 * that answered a retryable error and was then looked up with a `find_*` tool supports the reconcile
 * skill. A skill is kept when at least `minSupport` distinct trials support it (default 2). Infrastructure
 * failures, unran trials and the held-out split are never induced from.
 */
import type { StepRecord, ToolDescriptor, TrialRecord } from "../core/contracts.ts";
import { hashJson } from "../core/hash.ts";
import { trialTools } from "./chat-messages.ts";
import type { Skill } from "./skill.ts";
import { provenanceOf } from "./skill-provenance.ts";
import { excludedBecause } from "./training-filter.ts";

export const RULE_INDUCER_ID = "rule@1";

export interface RuleInducerOptions {
  /** Distinct supporting trials a skill needs (default 2). */
  minSupport?: number;
}

/** The lessons the rule inducer knows, with the tools they are about (what its text names). */
export type LessonPattern =
  | "reconcile_after_timeout"
  | "approval_first"
  | "follow_conditions"
  | "confirm_before_claim";

interface Lesson {
  kind: LessonPattern;
  /** The tool the lesson is about (e.g. the write). */
  tool?: string;
  /** The lookup tool (reconcile). */
  find?: string;
  /** The key argument of the write (reconcile). */
  keyArg?: string;
}

interface Candidate {
  lesson: Lesson;
  records: TrialRecord[];
}

const isRetryableError = (s: StepRecord): boolean =>
  s.observation.kind === "tool_result" && !s.observation.result.ok && s.observation.result.error.retryable;

function keyArgOf(args: Record<string, unknown>): string | undefined {
  return Object.keys(args).find((k) => /key/i.test(k));
}

/** The lookup tool for a write: `find_*`/`list_*` sharing a word with the write's name, else any. */
function findToolFor(write: string, tools: readonly ToolDescriptor[]): string | undefined {
  const finds = tools.map((t) => t.name).filter((n) => /^(find|list|search)_/.test(n));
  const words = write.split("_").slice(1);
  return finds.find((n) => words.some((w) => n.includes(w.replace(/s$/, "")))) ?? finds[0];
}

function toolNamed(tools: readonly ToolDescriptor[], re: RegExp): string | undefined {
  return tools.map((t) => t.name).find((n) => re.test(n));
}

/** The write that was retried after a retryable error (the first such tool), if any. */
function retriedWrite(steps: readonly StepRecord[]): StepRecord | undefined {
  return steps.find((s) => isRetryableError(s) && keyArgOf(s.action.args) !== undefined);
}

function candidatesOf(record: TrialRecord): Lesson[] {
  const tools = trialTools(record);
  const steps = record.steps.filter((s) => !s.setup);
  const codes = new Set((record.verdict?.violations ?? []).map((v) => v.code));
  const out: Lesson[] = [];
  const write = retriedWrite(steps);
  const writeTool = write?.action.tool ?? toolNamed(tools, /^(create|submit|place|issue)_/);
  // duplicate_write (device-support), duplicate_refund (order-ops), ...: a write that landed twice
  if ([...codes].some((c) => /^duplicate_/.test(c)) && write) {
    const keyArg = keyArgOf(write.action.args);
    const find = findToolFor(write.action.tool, tools);
    if (keyArg && find) out.push({ kind: "reconcile_after_timeout", tool: write.action.tool, find, keyArg });
  }
  if (record.outcome === "passed" && write) {
    const after = steps.slice(steps.indexOf(write) + 1);
    const find = findToolFor(write.action.tool, tools);
    const keyArg = keyArgOf(write.action.args);
    if (find && keyArg && after.some((s) => s.action.tool === find))
      out.push({ kind: "reconcile_after_timeout", tool: write.action.tool, find, keyArg });
  }
  if (codes.has("unauthorized_write_attempt") && writeTool)
    out.push({ kind: "approval_first", tool: writeTool });
  if (codes.has("conditions_violated") && writeTool) out.push({ kind: "follow_conditions", tool: writeTool });
  if ((codes.has("unsupported_claim") || codes.has("false_claim")) && writeTool)
    out.push({ kind: "confirm_before_claim", tool: writeTool });
  return out;
}

/** The lesson in words (what an LLM reads and retrieval indexes). */
function lessonText(d: Lesson, tools: readonly ToolDescriptor[]): { title: string; text: string } {
  const tool = d.tool ?? "the write";
  switch (d.kind) {
    case "reconcile_after_timeout":
      return {
        title: `After a timeout of ${tool}, reconcile by key`,
        text:
          `When ${tool} answers a retryable error such as timeout, the write may already have committed. ` +
          `Do not retry with a new ${d.keyArg}: call ${d.find} with the same ${d.keyArg} first, use the write it ` +
          `finds, and retry ${tool} only with the same ${d.keyArg}.`,
      };
    case "approval_first": {
      const get = toolNamed(tools, /^get_approval/) ?? "the approval lookup";
      const request = toolNamed(tools, /^request_approval/) ?? "the approval request";
      return {
        title: `Approval before ${tool}`,
        text:
          `Never call ${tool} before the approval is approved: call ${get}, call ${request} when there is ` +
          `none, wait and poll ${get} while it is pending, and close as denied when it is denied.`,
      };
    }
    case "follow_conditions":
      return {
        title: `Follow the approval's conditions in ${tool}`,
        text:
          `When the approval sets conditions (a model, a shipping address), call ${tool} with the ` +
          "conditions' values instead of the case's own.",
      };
    case "confirm_before_claim":
      return {
        title: `Confirm ${tool} before claiming it`,
        text:
          `If ${tool} cannot be confirmed (its answer was lost and the lookup keeps failing), escalate with ` +
          "the ids of the unconfirmed operations and close as escalated; never claim a write you have not confirmed.",
      };
  }
}

function skillId(d: Lesson): string {
  return `skill-${hashJson({ kind: d.kind, tool: d.tool ?? "", find: d.find ?? "", keyArg: d.keyArg ?? "" }, 12)}`;
}

/** Induces skills from trial records (infrastructure failures and unran trials are ignored). */
export function induceRuleSkills(records: readonly TrialRecord[], options: RuleInducerOptions = {}): Skill[] {
  const minSupport = options.minSupport ?? 2;
  const byId = new Map<string, Candidate & { tools: ToolDescriptor[] }>();
  for (const record of records) {
    // never from infrastructure failures, unran trials or the held-out split
    if (excludedBecause(record) !== undefined) continue;
    for (const lesson of candidatesOf(record)) {
      const id = skillId(lesson);
      const c = byId.get(id) ?? { lesson, records: [], tools: trialTools(record) };
      if (!c.records.includes(record)) c.records.push(record);
      byId.set(id, c);
    }
  }
  const skills: Skill[] = [];
  for (const [id, c] of byId) {
    if (c.records.length < minSupport) continue;
    skills.push({
      id,
      ...lessonText(c.lesson, c.tools),
      inducer: RULE_INDUCER_ID,
      provenance: provenanceOf(c.records),
      extra: { pattern: c.lesson.kind },
    });
  }
  return skills.sort(
    (a, b) => b.provenance.trials.length - a.provenance.trials.length || a.id.localeCompare(b.id),
  );
}
