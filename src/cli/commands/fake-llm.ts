import type { Command } from "commander";
import { intOption, printJson, readDataFile } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

interface FakeLlmFlags {
  script: string;
  port?: number;
  host?: string;
  latencyMs?: number;
  maxConcurrent?: number;
  apiKey?: string;
  json?: boolean;
}

export function registerFakeLlm(program: Command, gymSource: GymSource): void {
  program
    .command("fake-llm")
    .description(
      "serve a scripted fake LLM provider (OpenAI chat completions and Anthropic messages) for offline runs",
    )
    .requiredOption(
      "--script <spec>",
      "policy:NAME (a model that follows a scripted policy, e.g. policy:cautious) or a JSON/YAML script file",
    )
    .option("--port <n>", "port (default: any free port)", intOption("--port"))
    .option("--host <addr>", "address to bind", "127.0.0.1")
    .option("--latency-ms <n>", "delay before every answer", intOption("--latency-ms"))
    .option(
      "--max-concurrent <n>",
      "answer 429 above this many requests in flight",
      intOption("--max-concurrent"),
    )
    .option("--api-key <key>", "require this key (401 otherwise)")
    .option("--json", "print the address as JSON")
    .action(async (flags: FakeLlmFlags) => {
      const { loadFakeScript } = await import("../../agents/llm/fake/script.ts");
      const { startFakeLlmServer } = await import("../../agents/llm/fake/server.ts");
      const script = loadFakeScript(flags.script, (await gymSource()).registry, readDataFile);
      const faults = { ...script.faults };
      if (flags.latencyMs !== undefined) faults.latencyMs = flags.latencyMs;
      if (flags.maxConcurrent !== undefined) faults.maxConcurrent = flags.maxConcurrent;
      const server = await startFakeLlmServer({
        model: script.model,
        faults,
        host: flags.host ?? "127.0.0.1",
        port: flags.port ?? 0,
        ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
      });
      if (flags.json) printJson({ url: server.url, baseURL: server.baseURL, script: script.description });
      else {
        process.stdout.write(
          `fake LLM (${script.description}) listening on ${server.url}\n` +
            `  OPENAI_BASE_URL=${server.baseURL} OPENAI_API_KEY=fake proving run --agent openai:fake\n` +
            `  ANTHROPIC_BASE_URL=${server.baseURL} ANTHROPIC_API_KEY=fake proving run --agent anthropic:fake\n` +
            `  proving run --agent openai-compatible:fake@${server.baseURL}\n` +
            "Ctrl-C to stop.\n",
        );
      }
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await server.close();
      process.stderr.write(`fake LLM: ${JSON.stringify(server.stats)}\n`);
    });
}
