/**
 * The agent of each arm of `proving learn`: the one `--agent` names, given the arm's skills the way
 * that agent takes them. An LLM agent (`openai:`, `anthropic:`, `openai-compatible:`: the fake
 * provider too, through its base URL) gets them in its system prompt (`createLlmAgent(config,
 * {skills})`); any other agent the gym resolves (scripted, module, program, learner) in its task's
 * `context.skills`; `demo-directives` is the plumbing demo (`demo-directives-agent.ts`).
 */
import type { LlmAgentConfig, ProviderKind } from "../agents/llm/config.ts";
import type { LimiterPool } from "../agents/llm/limiter.ts";
import type { PriceTable } from "../agents/llm/prices.ts";
import type { SkillSource } from "../agents/llm/session.ts";
import type { ResolveAgent, ResolvedAgent } from "../agents/resolve.ts";
import type { JsonObject } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { contextSkillsAgent } from "./context-skills-agent.ts";
import { DEMO_AGENT, DEMO_WORLD, resolvedDemoAgent } from "./demo-directives-agent.ts";

/** One arm's agent: its id in the evaluation, its skills (none: the no-skill arm), what its ref records. */
export interface ArmAgentRequest {
  id: string;
  skills?: SkillSource;
  record: JsonObject;
}

export type ArmAgentFactory = (arm: ArmAgentRequest) => Promise<ResolvedAgent>;

/** How skills reach the agent: `prompt` (LLM), `context` (any other), `demo` (the plumbing demo). */
export type SkillChannel = "prompt" | "context" | "demo";

export interface ArmAgents {
  spec: string;
  channel: SkillChannel;
  agent: ArmAgentFactory;
}

export interface ArmAgentContext {
  resolveAgent: ResolveAgent;
  cwd: string;
  world: WorldDefinition;
  /** What LLM specs read (API keys, base URLs): the gym's environment. */
  env: Readonly<Record<string, string | undefined>>;
  prices: PriceTable;
  limiters: LimiterPool;
}

const LLM_PREFIXES: readonly ProviderKind[] = ["openai", "anthropic", "openai-compatible"];

/** The arms' agents for `spec` on `ctx.world`; the spec is checked (resolved once) up front. */
export async function armAgents(spec: string, ctx: ArmAgentContext): Promise<ArmAgents> {
  if (spec === DEMO_AGENT) {
    const demo = resolvedDemoAgent();
    demo.forWorld(ctx.world); // refuses any world but device-support@1
    return {
      spec,
      channel: "demo",
      agent: async (arm) =>
        contextSkillsAgent(demo, arm.id, arm.skills, { ...arm.record, world: DEMO_WORLD }),
    };
  }
  const colon = spec.indexOf(":");
  const provider = spec.slice(0, colon) as ProviderKind;
  if (colon > 0 && LLM_PREFIXES.includes(provider)) {
    const { endpointKey, parseLlmSpec, resolvedLlmAgent } = await import("../agents/llm/index.ts");
    const config: LlmAgentConfig = parseLlmSpec(provider, spec.slice(colon + 1), ctx);
    const limiter = ctx.limiters.get(endpointKey(config), config.limiter);
    return {
      spec,
      channel: "prompt",
      agent: async (arm) => {
        const resolved = resolvedLlmAgent({ ...config, id: arm.id }, spec, {
          limiter,
          ...(arm.skills ? { skills: arm.skills } : {}),
        });
        return { ...resolved, ref: { ...resolved.ref, config: { ...resolved.ref.config, ...arm.record } } };
      },
    };
  }
  const base = await ctx.resolveAgent(spec, { cwd: ctx.cwd, worlds: [ctx.world] });
  return {
    spec,
    channel: "context",
    // a learner agent (`learner:q`) is resolved per arm: each arm learns from its own trials
    agent: async (arm) =>
      contextSkillsAgent(
        base.ordered ? await ctx.resolveAgent(spec, { cwd: ctx.cwd, worlds: [ctx.world] }) : base,
        arm.id,
        arm.skills,
        arm.record,
      ),
  };
}
