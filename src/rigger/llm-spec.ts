import { type LlmAgentConfig, PROVIDERS, type ProviderKind } from "../agents/llm/config.ts";
import { parseLlmSpec, type SpecContext } from "../agents/llm/spec.ts";
import { configError } from "../core/errors.ts";

/** The model behind a rigger role (`designer` or `diagnoser`), from `llm:PROVIDER:MODEL` (or `both:...`). */
export function riggerLlmConfig(
  role: "designer" | "diagnoser",
  spec: string,
  ctx: SpecContext,
): LlmAgentConfig {
  const rest = spec.replace(/^(llm|both):/, "");
  const colon = rest.indexOf(":");
  const provider = rest.slice(0, colon) as ProviderKind;
  if (colon <= 0 || !PROVIDERS.includes(provider)) {
    throw configError(
      "bad_agent_spec",
      `${role} llm:${rest}: expected llm:PROVIDER:MODEL with PROVIDER one of ${PROVIDERS.join(", ")}`,
    );
  }
  return parseLlmSpec(provider, rest.slice(colon + 1), ctx);
}
