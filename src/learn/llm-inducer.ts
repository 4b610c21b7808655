/**
 * The LLM inducer: the provider layer (an `LlmAgentConfig`: OpenAI, Anthropic or compatible, the
 * fake provider included) reads compact trajectories, successes and failures, and answers skills as
 * JSON. Its prompt is recorded verbatim in the bank's induction record; skills it cites trials for get
 * those trials' provenance (else all it read); what cannot be used is listed as rejected, not thrown.
 */

import type { LlmAgentConfig } from "../agents/llm/config.ts";
import { lazyModelCaller } from "../agents/llm/lazy-caller.ts";
import type { AimdLimiter } from "../agents/llm/limiter.ts";
import type { FetchFn } from "../agents/llm/provider.ts";
import type { TrialRecord } from "../core/contracts.ts";
import { hashJson } from "../core/hash.ts";
import type { Inducer, Induction } from "./inducer.ts";
import type { Skill } from "./skill.ts";
import { provenanceOf } from "./skill-provenance.ts";
import { excludedBecause } from "./training-filter.ts";

export const LLM_INDUCER_SYSTEM =
  "You study trajectories of an agent acting in a simulated environment through tools, and write " +
  "reusable skills: short, concrete lessons that would have turned the failures into successes, or " +
  "that explain what the successes did right. Answer with JSON only: " +
  '{"skills": [{"title": string, "text": string, "trials": [trial ids it is based on]}]}.';

export interface LlmInducerOptions {
  /** Trials put in one prompt (default 24). */
  maxTrials?: number;
  /** Characters of each tool result kept (default 160). */
  maxResultChars?: number;
  fetch?: FetchFn;
  limiter?: AimdLimiter;
}

/** One trial as the prompt shows it: outcome, violations, then each call and what it answered. */
export function trajectoryDigest(record: TrialRecord, maxResultChars = 160): string {
  const lines = [
    `trial ${record.spec.id} (${record.outcome}${record.verdict?.violations.length ? `; violations: ${record.verdict.violations.map((v) => v.code).join(", ")}` : ""})`,
  ];
  for (const s of record.steps) {
    const obs = s.observation;
    const answer =
      obs.kind === "tool_result"
        ? obs.result.ok
          ? `ok ${JSON.stringify(obs.result).slice(0, maxResultChars)}`
          : `error ${obs.result.error.code}${obs.result.error.retryable ? " (retryable)" : ""}`
        : obs.kind;
    lines.push(`  ${s.index}. ${s.action.tool}(${JSON.stringify(s.action.args)}) -> ${answer}`);
  }
  return lines.join("\n");
}

function parseReply(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in the reply");
  return JSON.parse(text.slice(start, end + 1));
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);

export function llmInducer(config: LlmAgentConfig, options: LlmInducerOptions = {}): Inducer {
  const id = `llm:${config.provider}:${config.model}`;
  // the provider packages load at the first induction, not on import
  const callerOf = lazyModelCaller(config, options);
  return {
    id,
    async induce(records): Promise<Induction> {
      const usable = records
        // never infrastructure failures, unran trials or the held-out split
        .filter((r) => excludedBecause(r) === undefined)
        .slice(0, options.maxTrials ?? 24);
      const user =
        `Trajectories (${usable.length}), each call with what it answered:\n\n` +
        usable.map((r) => trajectoryDigest(r, options.maxResultChars)).join("\n\n");
      const prompt = { system: LLM_INDUCER_SYSTEM, user };
      const outcome = await (await callerOf()).call(
        {
          system: prompt.system,
          messages: [{ role: "user", content: [{ type: "text", text: user }] }],
          tools: [],
        },
        new AbortController().signal,
      );
      const rejected: string[] = [];
      const skills: Skill[] = [];
      let parsed: unknown;
      try {
        parsed = parseReply(outcome.reply.text);
      } catch (err) {
        rejected.push(
          `reply: ${err instanceof Error ? err.message : String(err)}: ${outcome.reply.text.slice(0, 200)}`,
        );
      }
      const list = (parsed as { skills?: unknown } | undefined)?.skills;
      if (parsed !== undefined && !Array.isArray(list)) rejected.push("reply: no skills list");
      const byId = new Map(usable.map((r) => [r.spec.id, r]));
      for (const [i, raw] of (Array.isArray(list) ? list : []).entries()) {
        const s = (raw ?? {}) as Record<string, unknown>;
        const text = str(s.text);
        if (!text) {
          rejected.push(`skills[${i}]: no text`);
          continue;
        }
        const cited = Array.isArray(s.trials) ? s.trials.filter((t) => byId.has(String(t))).map(String) : [];
        const from = cited.length ? cited.map((t) => byId.get(t) as TrialRecord) : usable;
        skills.push({
          id: `skill-${hashJson({ text }, 12)}`,
          title: str(s.title) ?? text.slice(0, 60),
          text,
          inducer: id,
          provenance: provenanceOf(from),
        });
      }
      return {
        skills,
        record: {
          inducer: id,
          trials: usable.length,
          skills: skills.length,
          prompt,
          ...(rejected.length ? { rejected } : {}),
          usage: {
            inputTokens: outcome.reply.usage.inputTokens,
            outputTokens: outcome.reply.usage.outputTokens,
            model: outcome.reply.modelId,
          },
        },
      };
    },
  };
}
