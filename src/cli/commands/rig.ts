import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import type { Gym } from "../../gym/gym.ts";
import type { RigOptions, RigResult } from "../../rigger/rig.ts";
import type { Designer } from "../../rigger/types.ts";
import { collectInt, intOption, numberOption, printJson, storePath, withStore } from "../context.ts";
import type { GymSource } from "../gym-source.ts";

export interface RigFlags {
  world?: string;
  agent?: string;
  rollouts?: number;
  designer?: string;
  diagnoser?: string;
  band?: string;
  slack?: number;
  baselineTrials?: number;
  difficulty?: number[];
  maxSteps?: number;
  id?: string;
  store?: string;
  report?: string | boolean;
  json?: boolean;
}

/** `--band LO,HI` → [lo, hi] with 0 ≤ lo < hi ≤ 1. */
export function parseBand(text: string): [number, number] {
  const parts = text.split(",").map((s) => Number(s.trim()));
  if (
    parts.length !== 2 ||
    parts.some((n) => !Number.isFinite(n)) ||
    parts[0] < 0 ||
    parts[1] > 1 ||
    parts[0] >= parts[1]
  ) {
    throw configError("bad_flag", `--band: expected LO,HI with 0 <= LO < HI <= 1, got "${text}"`);
  }
  return [parts[0], parts[1]];
}

/**
 * `--designer llm:PROVIDER:MODEL`: the LLM designer (its code runs in the rule sandbox), the code path
 * that turns its code into `rule.generated@1` layers, and the code API text. Loaded only when asked for.
 */
async function llmDesignerParts(
  spec: string,
  gym: Gym,
): Promise<Pick<RigOptions, "designer" | "realizeCode" | "ruleApi">> {
  const [{ llmDesignerFromSpec }, { ruleCodeRealizer }, code] = await Promise.all([
    import("../../rigger/llm-designer.ts"),
    import("../../rigger/code/index.ts"),
    import("../../rules/index.ts"),
  ]);
  const rules = code.generatedRule(code.isolateRuleSandbox());
  const designer = llmDesignerFromSpec(spec, {
    cwd: process.cwd(),
    env: { ...process.env },
    prices: gym.prices,
    limiters: gym.limiters,
    rules,
    checkLayers: (world, layers) => {
      gym.harness.normalize({ world, layers });
    },
  });
  return { designer, realizeCode: ruleCodeRealizer(rules), ruleApi: code.RULE_CODE_API };
}

/**
 * `--diagnoser rules|llm:PROVIDER:MODEL|both[:PROVIDER:MODEL]`: the LLM diagnoser, and whether its
 * diagnoses replace the rule-based ones or merge into them. `both` alone takes the model of an
 * `--designer llm:...`. Loaded only when asked for.
 */
async function llmDiagnoserPart(
  flag: string,
  designerFlag: string,
  gym: Gym,
): Promise<Pick<RigOptions, "diagnoser">> {
  if (flag === "rules") return {};
  const mode = flag.startsWith("both") ? "both" : "llm";
  const spec =
    flag === "both"
      ? designerFlag.startsWith("llm:")
        ? designerFlag
        : undefined
      : flag.replace(/^both:/, "llm:");
  if (!spec?.startsWith("llm:") || spec === "llm:") {
    throw configError(
      "bad_flag",
      `--diagnoser: rules, llm:PROVIDER:MODEL or both[:PROVIDER:MODEL] (both alone needs --designer llm:...), got "${flag}"`,
    );
  }
  const { llmDiagnoserFromSpec } = await import("../../rigger/llm-diagnoser.ts");
  const llm = llmDiagnoserFromSpec(spec, {
    cwd: process.cwd(),
    env: { ...process.env },
    prices: gym.prices,
    limiters: gym.limiters,
  });
  return { diagnoser: { llm, mode } };
}

/** The normative `rig --json` document. */
export function rigJson(r: RigResult) {
  return {
    id: r.id,
    world: r.world,
    designer: r.designer,
    band: r.band,
    baseline: r.baseline,
    diagnoser: r.diagnoser ?? "rules",
    diagnoses: r.diagnoses.map((d) => ({
      pattern: d.pattern,
      axis: d.axis,
      families: d.families,
      difficulties: d.difficulties,
      violations: d.violations,
      evidence: d.evidence,
      ...(d.summary ? { summary: d.summary } : {}),
      ...(d.support ? { support: d.support } : {}),
      ...(Array.isArray(d.facts?.diagnosers) ? { diagnosers: d.facts.diagnosers } : {}),
    })),
    ...(r.llmDiagnosis ? { llm_diagnosis: r.llmDiagnosis } : {}),
    candidates: r.candidates.map((c) => ({
      variant: c.variant,
      variant_id: c.variantId,
      pattern: c.pattern,
      layers: c.layers,
      designer: c.designer,
      ...(c.template ? { template: c.template } : {}),
      ...(c.codeHash ? { code_hash: c.codeHash } : {}),
      decision: c.decision,
      reason: c.reason,
      tasks: c.tasks,
      target: c.validation?.target ?? { trials: 0, passed: 0, rate: 0, ci: [0, 1] },
      known_good: c.validation?.knownGood ?? { trials: 0, passed: 0 },
      verifier_unchanged: c.validation?.verifierUnchanged ?? true,
      changes_outcomes: c.validation?.changesOutcomes ?? false,
      ...(c.refinements ? { refinements: c.refinements } : {}),
      experiments: c.experiments,
    })),
    accepted: r.accepted,
    rollouts: {
      baseline: r.rollouts.baseline,
      validation: r.rollouts.validation,
      total: r.rollouts.total,
      per_pattern: r.rollouts.perPattern,
    },
  };
}

/** Model-written text for a terminal: control characters (ANSI escapes, newlines) shown as `\uXXXX` escapes. */
const inert = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: neutralising control characters is the point
  text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

function renderRig(r: RigResult): string {
  const lines = [`rig ${r.id} on ${r.world}: baseline ${r.baseline.passed}/${r.baseline.trials} passed`];
  const l = r.llmDiagnosis;
  if (l) {
    lines.push(
      `llm diagnosis ${l.diagnoser}: ${l.status}${l.error ? ` (${inert(l.error)})` : ""}; ${l.diagnoses.length} kept, ${l.dropped.length} dropped`,
    );
    for (const d of l.diagnoses)
      lines.push(
        `  kept ${inert(d.pattern)} [${d.axis}] ${inert(d.summary ?? "")}; evidence ${d.evidence.map((e) => `${inert(e.trialId)}@${e.steps.join("/")}`).join(", ")}`,
      );
    for (const x of l.dropped)
      lines.push(
        `  dropped ${inert(x.pattern) || "?"}${x.evidence ? ` ${inert(x.evidence.trialId)}` : ""}: ${inert(x.reason)}`,
      );
  }
  for (const d of r.diagnoses) {
    const from = Array.isArray(d.facts?.diagnosers)
      ? ` (from ${d.facts.diagnosers.map(String).join(" + ")})`
      : "";
    lines.push(`diagnosis ${inert(d.pattern)} [${d.axis}] ${inert(d.summary ?? "")}${from}`);
    lines.push(`  families ${d.families.join(", ")}; violations ${d.violations.join(", ") || "-"}`);
    lines.push(`  evidence ${d.evidence.map((e) => `${e.trialId}@${e.steps.join("/")}`).join(", ")}`);
  }
  for (const c of r.candidates)
    lines.push(`${c.decision} ${c.variantId} ${c.layers.join(" + ")}: ${c.reason}`);
  lines.push(
    `accepted ${r.accepted.length}; rollouts baseline ${r.rollouts.baseline}, validation ${r.rollouts.validation}, total ${r.rollouts.total}`,
  );
  return lines.join("\n");
}

export function registerRig(program: Command, gymSource: GymSource): void {
  program
    .command("rig")
    .description(
      "diagnose an agent's weaknesses from its trajectories and build validated variants that exercise them",
    )
    .requiredOption("--world <id>", "base world, e.g. order-ops@1")
    .requiredOption("--agent <spec>", "the target agent (scripted policy, ./module.mjs|.ts, kind:spec)")
    .option("--rollouts <n>", "target validation rollouts per weakness (default 50)", intOption("--rollouts"))
    .option("--designer <kind>", "template (default) or llm:PROVIDER:MODEL")
    .option(
      "--diagnoser <kind>",
      "rules (default), llm:PROVIDER:MODEL (the model's validated diagnoses), or both[:PROVIDER:MODEL] (merged)",
    )
    .option("--band <lo,hi>", "target pass-rate band (default 0.4,0.6)")
    .option(
      "--slack <x>",
      "how far past the band the 95% interval may reach (default 0.2)",
      numberOption("--slack"),
    )
    .option(
      "--baseline-trials <n>",
      "baseline seeds per family × difficulty (default 2)",
      intOption("--baseline-trials"),
    )
    .option(
      "--difficulty <n>",
      "baseline difficulties (repeatable; default 1 2 3)",
      collectInt("--difficulty"),
    )
    .option("--max-steps <n>", "step budget per trial", intOption("--max-steps"))
    .option("--id <name>", "rig id: the prefix of every experiment it records (default: generated)")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--report <path>", "write the HTML report (baseline trials + rigger section) here")
    .option("--no-report", "do not write the HTML report")
    .option("--json", "print the result as one JSON document")
    .action(async (flags: RigFlags) => {
      // the rigger, the curriculum tables and the HTML report load when `rig` runs
      const [
        { openCurriculumStore },
        { defaultReportPath, writeHtmlReport },
        { riggerSection },
        { rig },
        { gymRollouts },
      ] = await Promise.all([
        import("../../curriculum/curriculum-store.ts"),
        import("../../report/html/build-report.ts"),
        import("../../report/html/rigger-section.ts"),
        import("../../rigger/rig.ts"),
        import("../../rigger/rollouts.ts"),
      ]);
      const [{ templateDesigner }, { DEFAULT_VALIDATION_PLAN }] = await Promise.all([
        import("../../rigger/template-designer.ts"),
        import("../../rigger/validate-candidate.ts"),
      ]);
      const gym = await gymSource();
      const world = gym.world(flags.world as string);
      const cwd = process.cwd();
      const target = await gym.resolveAgent(flags.agent as string, { cwd, worlds: [world] });
      const id =
        flags.id ??
        `rig-${new Date()
          .toISOString()
          .replace(/[-:.TZ]/g, "")
          .slice(0, 14)}`;
      const designerFlag = flags.designer ?? "template";
      let parts: Pick<RigOptions, "designer" | "realizeCode" | "ruleApi">;
      if (designerFlag === "template") parts = { designer: templateDesigner() as Designer };
      else if (designerFlag.startsWith("llm:")) parts = await llmDesignerParts(designerFlag, gym);
      else throw configError("bad_flag", `--designer: template or llm:SPEC, got "${designerFlag}"`);
      const diagnoserPart = await llmDiagnoserPart(flags.diagnoser ?? "rules", designerFlag, gym);
      const plan = {
        ...DEFAULT_VALIDATION_PLAN,
        ...(flags.band ? { band: parseBand(flags.band) } : {}),
        ...(flags.slack !== undefined ? { slack: flags.slack } : {}),
      };
      const file = storePath(flags.store);
      // The curriculum's variants live in the same store as the trials, SQLite or Postgres.
      const history = await openCurriculumStore(file);
      try {
        const result = await withStore(file, "write", async (store) => {
          const rollouts = await gymRollouts(gym.runOptions(), {
            world: world.id,
            target,
            store,
            cwd,
            ...(flags.maxSteps !== undefined ? { budget: { maxSteps: flags.maxSteps } } : {}),
          });
          const r = await rig({
            id,
            rollouts,
            ...parts,
            ...diagnoserPart,
            plan,
            ...(flags.rollouts !== undefined ? { budgetPerWeakness: flags.rollouts } : {}),
            baseline: {
              ...(flags.difficulty?.length ? { difficulties: flags.difficulty } : {}),
              ...(flags.baselineTrials !== undefined ? { trials: flags.baselineTrials } : {}),
            },
            layers: gym.harness.layers(),
            record: async (c, provenance) => {
              if (c.decision === "REFINE") return;
              await history.addVariant({
                variant: c.variant as unknown as JsonValue,
                variantId: c.variantId,
                provenance,
                status: c.decision === "ACCEPT" ? "accepted" : "rejected",
              });
            },
            ...(flags.json ? {} : { onEvent: (m: string) => process.stderr.write(`${m}\n`) }),
          });
          if (flags.report !== false) {
            const out = typeof flags.report === "string" ? flags.report : defaultReportPath(file, id);
            const written = await writeHtmlReport(store, r.baseline.experiment, out, {
              sections: [riggerSection(r)],
            });
            if (!flags.json) process.stderr.write(`report: ${written.path}\n`);
          }
          return r;
        });
        if (flags.json) printJson(rigJson(result));
        else process.stdout.write(`${renderRig(result)}\n`);
      } finally {
        await history.close();
      }
    });
}
