/**
 * One episode of an LLM agent. The conversation lives here: the task becomes the first user message,
 * each reply's tool calls become consecutive actions (queued; the model is called again only when all
 * of them have results), each result goes back to the model as a tool message. Accounting for the
 * model calls behind an action rides on that action's `meta`.
 */

import { performance } from "node:perf_hooks";
import type {
  ActContext,
  ActionMeta,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  ToolDescriptor,
  ToolResultObservation,
} from "../../core/contracts.ts";
import { ProvingError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import type { LlmAgentConfig } from "./config.ts";
import type { CallOutcome, ModelCaller } from "./model-call.ts";
import { costUsd } from "./prices.ts";
import type { PromptMessage } from "./provider.ts";
import { renderTemplate } from "./templates.ts";
import { type MappedCall, mapToolCall } from "./tool-calls.ts";

/** Time kept back from the trial's deadline for a provider failure to reach the runner as `infra_error`. */
const RETRY_MARGIN_MS = 500;

/** A skill an LLM agent is given for one task: an id (recorded on the first action) and its text. */
export interface PromptSkill {
  id: string;
  text: string;
}

/** Chooses the skills for a task (e.g. retrieval from a skill bank); what they say joins the system prompt. */
export type SkillSource = (task: { instruction: string; tools: readonly ToolDescriptor[] }) => PromptSkill[];

interface Outstanding {
  callId: string;
  toolCallId: string;
  toolName: string;
  malformed?: MappedCall["malformed"];
}

interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: { type: "text"; value: string };
}

/** Sums of the model calls not yet charged to an action. */
class Accounts {
  tokensIn = 0;
  tokensOut = 0;
  costUsd = 0;
  cachedCostUsd = 0;
  latencyMs = 0;
  waitMs = 0;
  calls = 0;
  hits = 0;
  attempts = 0;
  throttles = 0;

  add(outcome: CallOutcome, cost: number): void {
    this.tokensIn += outcome.reply.usage.inputTokens;
    this.tokensOut += outcome.reply.usage.outputTokens;
    if (outcome.cached) this.cachedCostUsd += cost;
    else this.costUsd += cost;
    this.latencyMs += outcome.latencyMs;
    this.waitMs += outcome.waitMs;
    this.calls++;
    if (outcome.cached) this.hits++;
    this.attempts += outcome.attempts;
    this.throttles += outcome.throttles;
  }
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export class LlmSession implements AgentSession {
  private readonly controller = new AbortController();
  private system = "";
  private tools: readonly ToolDescriptor[] = [];
  private toolsByName = new Map<string, ToolDescriptor>();
  private readonly messages: PromptMessage[] = [];
  private readonly queue: AgentAction[] = [];
  private readonly outstanding: Outstanding[] = [];
  private results: ToolResultPart[] = [];
  private accounts = new Accounts();
  private readonly usedCallIds = new Set<string>();
  private warned = false;
  private skillIds: string[] | undefined;
  /** When the provider's retries must stop (`performance.now()` time), from the trial's time left. */
  private until: number | undefined;

  constructor(
    private readonly config: LlmAgentConfig,
    private readonly caller: ModelCaller,
    private readonly episode: EpisodeInfo,
    private readonly skills?: SkillSource,
  ) {}

  async act(observation: Observation, context?: ActContext): Promise<AgentAction> {
    // the provider's retries stop before the trial's time does (see ModelCaller.call)
    this.until =
      context?.timeLeftMs === undefined
        ? undefined
        : performance.now() + context.timeLeftMs - RETRY_MARGIN_MS;
    if (observation.kind === "task") this.begin(observation);
    else this.record(observation);
    const next = this.queue.shift();
    if (next) return next;
    if (this.results.length > 0) {
      this.messages.push({ role: "tool", content: this.results });
      this.results = [];
    }
    return this.ask();
  }

  async end(): Promise<void> {
    this.controller.abort(new ProvingError("session_ended", "the trial ended"));
  }

  private begin(task: Extract<Observation, { kind: "task" }>): void {
    this.tools = task.tools.length ? task.tools : this.episode.tools;
    this.toolsByName = new Map(this.tools.map((t) => [t.name, t]));
    const names = this.tools.map((t) => t.name).join(", ");
    const t = this.config.templates;
    this.system = renderTemplate(t.system, { world: this.episode.world, tools: names });
    const skills = this.skills?.({ instruction: task.instruction, tools: this.tools }) ?? [];
    if (skills.length > 0) {
      this.system += `\n\nSkills learned in earlier episodes (apply the ones that fit):\n${skills.map((k) => `- ${k.text}`).join("\n")}`;
      this.skillIds = skills.map((k) => k.id);
    }
    this.say(
      renderTemplate(t.instruction, {
        instruction: task.instruction,
        context: JSON.stringify(task.context),
        world: this.episode.world,
        // no task id reaches an agent: the placeholder names the opaque episode
        task_id: this.episode.episodeId,
        episode_id: this.episode.episodeId,
        tools: names,
      }),
    );
  }

  private say(text: string): void {
    this.messages.push({ role: "user", content: [{ type: "text", text }] });
  }

  /** Files the result of one of our calls for the next tool message. */
  private record(obs: ToolResultObservation): void {
    let i = this.outstanding.findIndex((o) => o.callId === obs.callId);
    if (i < 0 && this.outstanding.length > 0) i = 0; // not our numbering: answer the oldest call
    const rendered = renderTemplate(this.config.templates.toolResult, {
      result: JSON.stringify(obs.result),
      tool: obs.tool,
      call_id: obs.callId,
      now: String(obs.now),
    });
    if (i < 0) {
      this.say(rendered);
      return;
    }
    const [call] = this.outstanding.splice(i, 1);
    const value = call.malformed
      ? `${rendered}\n(note from the gym: ${call.malformed.detail}; the call was not executed)`
      : rendered;
    this.results.push({
      type: "tool-result",
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: "text", value },
    });
  }

  private uniqueCallId(id: string): string {
    let callId = id || `call-${this.usedCallIds.size}`;
    for (let n = 2; this.usedCallIds.has(callId); n++) callId = `${id}~${n}`;
    this.usedCallIds.add(callId);
    return callId;
  }

  /** Calls the model until it answers with tool calls (a few reminders for text-only replies). */
  private async ask(): Promise<AgentAction> {
    for (let nudges = 0; ; nudges++) {
      const outcome = await this.caller.call(
        { system: this.system, messages: this.messages, tools: this.tools },
        this.controller.signal,
        this.until,
      );
      const reply = outcome.reply;
      const price = this.config.price;
      this.accounts.add(outcome, price ? costUsd(price, reply.usage) : 0);
      if (reply.toolCalls.length > 0) return this.plan(outcome);
      this.messages.push({
        role: "assistant",
        content: [{ type: "text", text: reply.text || "(empty reply)" }],
      });
      if (nudges >= this.config.maxNudges) {
        throw new ProvingError(
          "no_tool_call",
          `the model answered without a tool call ${nudges + 1} time(s) (finish: ${reply.finishReason}): ${reply.text.slice(0, 200)}`,
        );
      }
      this.say(
        renderTemplate(this.config.templates.noToolCall, { tools: this.tools.map((t) => t.name).join(", ") }),
      );
    }
  }

  /** Turns a reply's tool calls into queued actions; returns the first, carrying the accounts. */
  private plan(outcome: CallOutcome): AgentAction {
    const reply = outcome.reply;
    const content: Array<
      | { type: "text"; text: string }
      | { type: "tool-call"; toolCallId: string; toolName: string; input: JsonObject }
    > = [];
    if (reply.text) content.push({ type: "text", text: reply.text });
    const size = reply.toolCalls.length;
    reply.toolCalls.forEach((call, k) => {
      const mapped = mapToolCall(call, this.toolsByName);
      const callId = this.uniqueCallId(call.id);
      content.push({
        type: "tool-call",
        toolCallId: call.id,
        toolName: call.name,
        input: mapped.historyInput,
      });
      this.outstanding.push({
        callId,
        toolCallId: call.id,
        toolName: call.name,
        ...(mapped.malformed ? { malformed: mapped.malformed } : {}),
      });
      const meta: ActionMeta = k === 0 ? this.chargeAccounts(outcome) : {};
      if (this.skillIds) {
        meta.skills = this.skillIds;
        this.skillIds = undefined;
      }
      if (size > 1) {
        meta.batchIndex = k;
        meta.batchSize = size;
      }
      if (mapped.malformed) {
        meta.malformed = mapped.malformed.kind;
        meta.malformedDetail = mapped.malformed.detail;
      }
      this.queue.push({ tool: mapped.tool, args: mapped.args, callId, meta });
    });
    this.messages.push({ role: "assistant", content });
    return this.queue.shift()!;
  }

  private chargeAccounts(outcome: CallOutcome): ActionMeta {
    const a = this.accounts;
    this.accounts = new Accounts();
    const meta: ActionMeta = {
      tokensIn: a.tokensIn,
      tokensOut: a.tokensOut,
      costUsd: a.costUsd,
      latencyMs: round(a.latencyMs, 1),
      cached: a.hits > 0 && a.hits === a.calls,
      model: outcome.reply.modelId,
      finishReason: outcome.reply.finishReason,
      modelCalls: a.calls,
    };
    if (a.hits > 0) {
      meta.cacheHits = a.hits;
      meta.cachedCostUsd = a.cachedCostUsd;
    }
    if (a.attempts > a.calls - a.hits) meta.retries = a.attempts - (a.calls - a.hits);
    if (a.throttles > 0) meta.throttles = a.throttles;
    if (a.waitMs >= 1) meta.waitMs = round(a.waitMs, 1);
    if (!this.config.price) meta.costUnknown = true;
    if (!this.warned && outcome.reply.warnings.length > 0) {
      this.warned = true;
      meta.warnings = outcome.reply.warnings;
    }
    return meta;
  }
}
