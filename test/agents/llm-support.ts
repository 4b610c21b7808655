/** Shared helpers of the LLM agent tests: fake servers, env scoping, experiments that keep full records. */
import type { FakeLlmServer, FakeLlmServerOptions } from "../../src/agents/llm/fake/index.ts";
import { startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { type ExperimentInput, parseExperiment } from "../../src/runner/experiment.ts";
import { type ExperimentResult, type RunOptions, runExperiment } from "../../src/runner/run.ts";

export const registry = defaultGym().registry;
export const world = registry.world("device-support@1");

export async function withServer<T>(
  options: FakeLlmServerOptions,
  fn: (server: FakeLlmServer) => Promise<T>,
): Promise<T> {
  const server = await startFakeLlmServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** Sets environment variables for the duration of `fn` (undefined deletes), then restores them. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, value] of Object.entries(v)) {
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

/** The environment that points an `openai:`/`anthropic:` spec at a fake server. */
export function envFor(server: FakeLlmServer): Record<string, string | undefined> {
  return {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: server.baseURL,
    ANTHROPIC_API_KEY: "test-key",
    PROVING_LLM_CACHE: undefined,
  };
}

/** The `--agent` spec of a provider format against a fake server (`options` appended after `?`). */
export function specFor(
  provider: "openai" | "anthropic" | "openai-compatible",
  server: FakeLlmServer,
  model = "fake-model",
  options = "",
): string {
  const q = options ? `?${options}` : "";
  return provider === "openai-compatible"
    ? `openai-compatible:${model}@${server.baseURL}${q}`
    : `${provider}:${model}${q}`;
}

export interface RunResult {
  result: ExperimentResult;
  records: TrialRecord[];
}

/** Runs an experiment in memory and keeps every full trial record (in manifest order). */
export async function runWithRecords(
  input: ExperimentInput,
  options: Partial<RunOptions> = {},
): Promise<RunResult> {
  const records: TrialRecord[] = [];
  // a gym per run, reading the environment as `withEnv` set it (API keys, base URLs)
  const gym = defaultGym({ env: { ...process.env } });
  const result = await runExperiment(parseExperiment({ worlds: ["device-support@1"], ...input }), {
    ...gym.runOptions(),
    concurrency: 4,
    ...options,
    onTrial: (record, progress) => {
      records.push(record);
      options.onTrial?.(record, progress);
    },
  });
  records.sort((a, b) => a.spec.index - b.spec.index);
  return { result, records };
}

export const outcomesOf = (records: TrialRecord[]) => records.map((r) => r.outcome);
