import type { LlmAgentConfig } from "../agents/llm/config.ts";
import { lazyModelCaller } from "../agents/llm/lazy-caller.ts";
import type { LimiterPool } from "../agents/llm/limiter.ts";
import type { FetchFn, PromptMessage } from "../agents/llm/provider.ts";
import { Rng } from "../core/rng.ts";
import {
  actsOfText,
  type CustomerReply,
  type CustomerSimulator,
  readIntent,
} from "../worlds/shared/index.ts";
import { customerPrompt } from "./customer-prompt.ts";

export interface LlmCustomerOptions {
  /** The model to play the customer (provider, model, base URL, key: `defaultConfig(...)`). */
  config: LlmAgentConfig;
  /** The simulator's id, named by a task's `simulator` param (default `llm`). */
  id?: string;
  /** The gym's provider limiters (shared with agents on the same endpoint). */
  limiters?: LimiterPool;
  fetch?: FetchFn;
  /** Reply delay range in virtual seconds (default [20, 90]), drawn from the profile's seed and the turn. */
  delay?: [number, number];
  signal?: AbortSignal;
}

const text = (role: "user" | "assistant", t: string): PromptMessage =>
  role === "user"
    ? { role: "user", content: [{ type: "text", text: t }] }
    : { role: "assistant", content: [{ type: "text", text: t || "(no reply)" }] };

/**
 * A customer played by an LLM through the provider layer (limiter, retries, no SDK retries). The
 * system prompt is `customerPrompt(profile)`, recorded in the task (`describe`); the agent's messages
 * are the user turns, the customer's earlier replies the assistant turns. The reply's acts (facts it
 * states, read-backs it confirms or refuses) are read from its text (`actsOfText`), so the verifier and
 * the simulator audit judge an LLM customer as they judge a scripted one. Network IO: it lives outside
 * the pure world and is injected, `deviceSupportV2World({simulators: [llmCustomer(...)]})`.
 */
export function llmCustomer(opts: LlmCustomerOptions): CustomerSimulator {
  const { config } = opts;
  // the provider packages load at the first reply (heavy dependencies load where they are used)
  const callerOf = lazyModelCaller(config, opts);
  const [lo, hi] = opts.delay ?? [20, 90];
  return {
    id: opts.id ?? "llm",
    describe: (profile) => `${config.id}\n${customerPrompt(profile)}`,
    async reply(turn): Promise<CustomerReply> {
      const p = turn.profile;
      const messages = [...turn.thread, turn.message].map((m) =>
        text(m.from === "agent" ? "user" : "assistant", m.text),
      );
      // a conversation the customer opened still starts with a user turn (some providers require it)
      if (messages[0]?.role === "assistant") messages.unshift(text("user", "(you wrote to support first)"));
      const outcome = await (await callerOf()).call(
        { system: customerPrompt(p), messages, tools: [] },
        opts.signal ?? new AbortController().signal,
      );
      const reply = outcome.reply.text.trim();
      const rng = Rng.seeded(p.seed, `llm-customer/${turn.turn}`);
      return {
        text: reply,
        delay: rng.int(lo, hi),
        acts: actsOfText(reply, p, readIntent(turn.message.text, p)),
      };
    },
  };
}
