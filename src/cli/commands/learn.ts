import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { ProviderKind } from "../../agents/llm/config.ts";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import type { LearnOptions } from "../../learn/learn-loop.ts";
import { collect, collectInt, intOption, printJson, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { readVariantFlag } from "../variant-flag.ts";

interface LearnFlags {
  id?: string;
  world: string;
  agent?: string;
  inductionSeeds?: number[];
  variant?: string[];
  acceptedVariants?: boolean;
  family?: string[];
  heldout?: string[];
  inductionTrials?: number;
  inductionDifficulty?: number[];
  difficulty?: number[];
  trials?: number;
  seed?: number;
  k?: number;
  minSupport?: number;
  inducer: string;
  maxSteps?: number;
  concurrency?: number;
  out?: string;
  embeddings?: string;
  dimensions?: number;
  store?: string;
  report?: string | false;
  json?: boolean;
}

/** `1,2,3` → [1, 2, 3]. */
const intList = (name: string) => (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(intOption(name));

export function registerLearn(program: Command, gymSource: GymSource): void {
  program
    .command("learn")
    .description(
      "induce skills from (a) the original world and (b) accepted variants (matched sizes, per induction seed), then evaluate the --agent with no skills vs (a) vs (b) on the unmodified world and held-out families (intervals by family cluster); without a real model it measures plumbing, not whether skills help",
    )
    .option(
      "--agent <spec>",
      "the agent every arm plays (required): an LLM (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL@URL; skills in its system prompt), any other agent the gym resolves (skills in its task's context.skills), or demo-directives (device-support@1 plumbing demo: proves nothing about transfer)",
    )
    .option("--world <id>", "the world to learn on", "device-support@1")
    .option(
      "--id <name>",
      "names the run's experiments <id>-induce-original-s<seed>|-induce-variants-s<seed>|-eval",
    )
    .option(
      "--variant <file|json>",
      "an accepted variant {world, layers} (repeatable; a file may list several; default: the world with each keyed write's reply lost after commit)",
      collect,
    )
    .option(
      "--accepted-variants",
      "arm (b) from the store's accepted variants (the curriculum's and rigger's)",
    )
    .option(
      "--family <name>",
      "a family to induce from and evaluate on (repeatable; default: all not held out)",
      collect,
    )
    .option(
      "--heldout <name>",
      "a held-out family, never induced from (repeatable; default: the last quarter of the world's families)",
      collect,
    )
    .option(
      "--induction-seeds <list>",
      "induction seeds, comma-separated (default 1,2,3): each induces its own banks; seed s plays task seeds 1000·s on",
      intList("--induction-seeds"),
    )
    .option(
      "--induction-trials <n>",
      "trials each inducer reads (the same for both arms; default 8)",
      intOption("--induction-trials"),
    )
    .option(
      "--induction-difficulty <n>",
      "difficulty of induction trials (repeatable; default 1)",
      collectInt("--induction-difficulty"),
    )
    .option("--difficulty <n>", "evaluation difficulty (repeatable; default 1 2)", collectInt("--difficulty"))
    .option("--trials <n>", "evaluation seeds per family × difficulty (default 4)", intOption("--trials"))
    .option("--seed <n>", "evaluation base seed (default 0; below 1000)", intOption("--seed"))
    .option("--k <n>", "skills retrieved per task (default 3)", intOption("--k"))
    .option(
      "--min-support <n>",
      "rule inducer: supporting trials a skill needs (default 2)",
      intOption("--min-support"),
    )
    .option(
      "--inducer <spec>",
      "rule (offline), or an LLM: openai:MODEL, anthropic:MODEL, openai-compatible:MODEL@URL",
      "rule",
    )
    .option("--max-steps <n>", "step budget per trial (default 200)", intOption("--max-steps"))
    .option("--concurrency <n>", "trials at once", intOption("--concurrency"))
    .option(
      "--embeddings <model>",
      "also index the saved banks with this embedding model (OpenAI wire: OPENAI_BASE_URL, OPENAI_API_KEY); the evaluation retrieves by BM25",
    )
    .option("--dimensions <n>", "embedding dimensions to request", intOption("--dimensions"))
    .option(
      "--out <dir>",
      "where the skill banks (bank-original-s<seed>.json, bank-variants-s<seed>.json) and learn.json go (default: learn/<id>/ beside the store)",
    )
    .option("--report <path>", "HTML report of the evaluation with the learning section")
    .option("--no-report", "no HTML report")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--json", "print the result as one JSON document")
    .action(async (flags: LearnFlags) => {
      if (!flags.agent)
        throw configError(
          "bad_flag",
          "proving learn needs --agent: an LLM (openai:MODEL, ...), any agent the gym resolves, or demo-directives (a plumbing demo on device-support@1)",
        );
      // the loop, the curriculum tables and the HTML report load when `learn` runs
      const [
        { openCurriculumStore },
        { ruleInducer },
        { runLearn },
        { renderLearnText },
        { llmInducer },
        { armAgents },
      ] = await Promise.all([
        import("../../curriculum/curriculum-store.ts"),
        import("../../learn/inducer.ts"),
        import("../../learn/learn-loop.ts"),
        import("../../learn/learn-text.ts"),
        import("../../learn/llm-inducer.ts"),
        import("../../learn/arm-agent.ts"),
      ]);
      const [{ saveSkillBank }, { defaultReportPath, writeHtmlReport }, { learnSection }] = await Promise.all(
        [
          import("../../learn/skill-bank.ts"),
          import("../../report/html/index.ts"),
          import("../../report/html/learn-section.ts"),
        ],
      );
      const gym = await gymSource();
      const id =
        flags.id ?? `learn-${new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)}`;
      let variants: JsonValue[] = (flags.variant ?? []).flatMap((v) => readVariantFlag(v, gym));
      const file = storePath(flags.store);
      if (flags.acceptedVariants) {
        const history = await openCurriculumStore(file);
        try {
          variants = [
            ...variants,
            ...(await history.listVariants({ status: "accepted" })).map((v) => v.variant),
          ];
        } finally {
          await history.close();
        }
        if (variants.length === 0)
          throw configError(
            "bad_flag",
            `--accepted-variants: the store at ${file} holds no accepted variant`,
          );
      }
      let inducer = ruleInducer({ minSupport: flags.minSupport ?? 2 });
      if (flags.inducer !== "rule") {
        const { PROVIDERS, parseLlmSpec } = await import("../../agents/llm/index.ts");
        const colon = flags.inducer.indexOf(":");
        const provider = flags.inducer.slice(0, colon) as ProviderKind;
        if (colon < 0 || !PROVIDERS.includes(provider))
          throw configError(
            "bad_flag",
            `--inducer ${flags.inducer}: use rule or ${PROVIDERS.map((p) => `${p}:MODEL`).join(", ")}`,
          );
        inducer = llmInducer(
          parseLlmSpec(provider, flags.inducer.slice(colon + 1), {
            cwd: process.cwd(),
            env: { ...process.env },
            prices: gym.prices,
          }),
        );
      }
      const options: LearnOptions = {
        id,
        world: gym.world(flags.world).id,
        inducer,
        ...(flags.inductionSeeds ? { inductionSeeds: flags.inductionSeeds } : {}),
        ...(variants.length ? { variants } : {}),
        ...(flags.family ? { trainFamilies: flags.family } : {}),
        ...(flags.heldout ? { heldoutFamilies: flags.heldout } : {}),
        ...(flags.inductionTrials !== undefined ? { inductionTrials: flags.inductionTrials } : {}),
        ...(flags.inductionDifficulty ? { inductionDifficulties: flags.inductionDifficulty } : {}),
        ...(flags.difficulty ? { evalDifficulties: flags.difficulty } : {}),
        ...(flags.trials !== undefined ? { evalTrials: flags.trials } : {}),
        ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
        ...(flags.k !== undefined ? { k: flags.k } : {}),
        ...(flags.minSupport !== undefined ? { minSupport: flags.minSupport } : {}),
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      };
      await withStore(flags.store, "write", async (store) => {
        const agents = await armAgents(flags.agent as string, {
          resolveAgent: gym.resolveAgent,
          cwd: process.cwd(),
          world: gym.world(options.world),
          env: { ...process.env },
          prices: gym.prices,
          limiters: gym.limiters,
        });
        const { result, banks } = await runLearn(options, { run: gym.runOptions(), agents, store });
        if (flags.embeddings) {
          const { providerEmbedder } = await import("../../learn/embedder.ts");
          const { withEmbeddingIndex } = await import("../../learn/retrieval.ts");
          const embedder = providerEmbedder({
            model: flags.embeddings,
            baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
            ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
            ...(flags.dimensions !== undefined ? { dimensions: flags.dimensions } : {}),
          });
          // a bank without skills keeps its BM25 index (there is nothing to embed)
          for (const b of banks) {
            if (b.original.skills.length) b.original = await withEmbeddingIndex(b.original, embedder);
            if (b.variants.skills.length) b.variants = await withEmbeddingIndex(b.variants, embedder);
          }
        }
        const out = path.resolve(flags.out ?? path.join(path.dirname(file), "learn", id));
        fs.mkdirSync(out, { recursive: true });
        for (const b of banks) {
          saveSkillBank(path.join(out, `bank-original-s${b.seed}.json`), b.original);
          saveSkillBank(path.join(out, `bank-variants-s${b.seed}.json`), b.variants);
        }
        fs.writeFileSync(path.join(out, "learn.json"), `${JSON.stringify(result, null, 2)}\n`);
        let report: string | undefined;
        if (flags.report !== false) {
          const target = flags.report ?? defaultReportPath(file, result.evaluation.experimentId);
          report = (
            await writeHtmlReport(store, result.evaluation.experimentId, target, {
              sections: [learnSection(result)],
            })
          ).path;
        }
        if (flags.json) printJson({ ...result, files: { dir: out, report: report ?? null } });
        else {
          process.stdout.write(`${renderLearnText(result)}\nskill banks and learn.json: ${out}\n`);
          if (report) process.stdout.write(`report: ${report}\n`);
        }
      });
    });
}
