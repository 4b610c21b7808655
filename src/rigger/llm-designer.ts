/**
 * The LLM designer: a `Designer` that asks a model (through the gym's provider layer: OpenAI chat
 * completions, Anthropic messages or any OpenAI-compatible server) for rule code or layer specs that
 * exercise a diagnosed weakness. Every code proposal is compiled, loaded and smoke-run on steps of
 * the input's trajectories in the rule sandbox before it is returned; failure records (compile
 * error, escape, throw, ...) go back to the model in a repair round in the same conversation, up to
 * `maxRepairRounds` times. It returns only proposals that passed those checks.
 */

import type { LlmAgentConfig } from "../agents/llm/config.ts";
import { lazyModelCaller } from "../agents/llm/lazy-caller.ts";
import type { LimiterPool } from "../agents/llm/limiter.ts";
import type { FetchFn, PromptMessage } from "../agents/llm/provider.ts";
import type { SpecContext } from "../agents/llm/spec.ts";
import { errorMessage } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { LayerSpec } from "../harness/variant.ts";
import type { GeneratedRuleDefinition } from "../rules/generated-rule.ts";
import type { RuleCodeFailure } from "../rules/rule-code-failure.ts";
import { checkRuleCode, type RuleCodeSample, samplesFromExcerpt } from "./code/check-rule-code.ts";
import {
  codeRepairPrompt,
  designerSystemPrompt,
  designerTaskPrompt,
  formatRepairPrompt,
  repairRequestPrompt,
} from "./code/designer-prompt.ts";
import { parseDesignerReply } from "./code/designer-reply.ts";
import { riggerLlmConfig } from "./llm-spec.ts";
import type { Designer, DesignerInput, Proposal, RepairRequest } from "./types.ts";

/** One model call of a designer conversation and what its checks found. */
export interface DesignerRound {
  /** `propose` or `repair` (the rigger's), and the round within that conversation (0: the first reply). */
  conversation: "propose" | "repair";
  round: number;
  proposals: number;
  accepted: number;
  failures: RuleCodeFailure[];
  /** Sections of the reply that could not be read, and layer proposals the harness refused. */
  problems: string[];
  tokens: { input: number; output: number };
}

export interface LlmDesignerOptions {
  config: LlmAgentConfig;
  /** The gym's `rule.generated@1` (its sandbox runs the checks). */
  rules: GeneratedRuleDefinition;
  /** Checks a layers proposal (e.g. with the gym's `harness.normalize`); what it throws goes back to the model. */
  checkLayers?: (world: string, layers: LayerSpec[]) => void;
  /** The endpoint's limiter (default: from `limiters`, else one of its own). */
  limiters?: LimiterPool;
  fetch?: FetchFn;
  /** Repair rounds after the first reply (default 2). */
  maxRepairRounds?: number;
  /** Proposals kept per conversation (default 3). */
  maxProposals?: number;
  /** `state.world` of the smoke calls (default: the input's state schema when it is a sample, else {}). */
  sampleWorld?: JsonObject;
  signal?: AbortSignal;
}

export interface LlmDesigner extends Designer {
  /** Every round so far, oldest first. */
  readonly rounds: readonly DesignerRound[];
}

const user = (text: string): PromptMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): PromptMessage => ({
  role: "assistant",
  content: [{ type: "text", text: text || "(empty reply)" }],
});

/** A JSON Schema (vs a sample of the state itself)? */
const isSchema = (v: JsonObject) => "$schema" in v || ("type" in v && ("properties" in v || "items" in v));

export function llmDesigner(opts: LlmDesignerOptions): LlmDesigner {
  const { config, rules } = opts;
  const callerOf = lazyModelCaller(config, opts);
  const maxRepairRounds = opts.maxRepairRounds ?? 2;
  const maxProposals = opts.maxProposals ?? 3;
  const rounds: DesignerRound[] = [];

  const samplesFor = (input: DesignerInput): RuleCodeSample[] => {
    const world = opts.sampleWorld ?? (isSchema(input.stateSchema) ? {} : input.stateSchema);
    const { shortestSuccess, longestFailure } = input.trajectories;
    return [
      ...(longestFailure ? samplesFromExcerpt(longestFailure, world) : []),
      ...(shortestSuccess ? samplesFromExcerpt(shortestSuccess, world) : []),
    ];
  };

  const converse = async (
    kind: DesignerRound["conversation"],
    input: DesignerInput,
    first: string,
  ): Promise<Proposal[]> => {
    const system = designerSystemPrompt(input);
    const messages: PromptMessage[] = [user(first)];
    const samples = samplesFor(input);
    const accepted: Proposal[] = [];
    for (let round = 0; round <= maxRepairRounds && accepted.length < maxProposals; round++) {
      const outcome = await (await callerOf()).call(
        { system, messages, tools: [] },
        opts.signal ?? new AbortController().signal,
      );
      const text = outcome.reply.text;
      const parsed = parseDesignerReply(text, maxProposals - accepted.length);
      const failed: { rationale: string; failures: RuleCodeFailure[] }[] = [];
      const problems = [...parsed.problems];
      for (const p of parsed.proposals) {
        if (p.kind === "code") {
          const check = checkRuleCode(rules, p.source, { samples });
          if (check.ok) accepted.push(p);
          else failed.push({ rationale: p.rationale, failures: check.failures });
        } else {
          try {
            opts.checkLayers?.(input.world, p.layers);
            accepted.push(p);
          } catch (err) {
            problems.push(`proposal "${p.rationale}": its layers are refused: ${errorMessage(err)}`);
          }
        }
      }
      rounds.push({
        conversation: kind,
        round,
        proposals: parsed.proposals.length,
        accepted: accepted.length,
        failures: failed.flatMap((f) => f.failures),
        problems,
        tokens: { input: outcome.reply.usage.inputTokens, output: outcome.reply.usage.outputTokens },
      });
      if (failed.length === 0 && (problems.length === 0 || accepted.length > 0)) break;
      const repair = [
        ...(failed.length ? [codeRepairPrompt(failed)] : []),
        ...(problems.length ? [formatRepairPrompt(problems.join("; "))] : []),
      ].join("\n\n");
      messages.push(assistant(text), user(repair));
    }
    return accepted;
  };

  return {
    id: `llm:${config.id}`,
    rounds,
    propose: (input) => converse("propose", input, designerTaskPrompt(input)),
    repair: (input, request: RepairRequest) =>
      converse("repair", input, `${designerTaskPrompt(input)}\n\n${repairRequestPrompt(request)}`),
  };
}

/**
 * The designer of `--designer llm:SPEC`, SPEC an `--agent` LLM spec (`openai:MODEL`, `anthropic:MODEL`,
 * `openai-compatible:MODEL@URL`, with `?options`), read with the context's environment (API keys).
 */
export function llmDesignerFromSpec(
  spec: string,
  ctx: SpecContext & Omit<LlmDesignerOptions, "config">,
): LlmDesigner {
  const config = riggerLlmConfig("designer", spec, ctx);
  return llmDesigner({ ...ctx, config });
}
