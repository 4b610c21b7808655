import type { Command } from "commander";
import type { auditEnvironment } from "../../audit/index.ts";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import { collectInt, intOption, printJson } from "../context.ts";
import type { GymSource } from "../gym-source.ts";
import { readOneVariant } from "../variant-flag.ts";

interface AuditFlags {
  json?: boolean;
  seeds?: number;
  difficulty?: number[];
  fuzz?: number;
  signalSeeds?: number;
}

/**
 * `proving audit TARGET`: a world id, a variant (file or inline JSON, as `--variant` takes), or the
 * URL of a `proving serve` server (token in `$PROVING_REMOTE_TOKEN`). Exit 1 when a check fails.
 */
export function registerAudit(program: Command, gymSource: GymSource): void {
  program
    .command("audit")
    .description(
      "audit a world, variant or proving serve URL: known-good solves it, null/random agents cannot pass, verdicts deterministic, reset clean, bad input coded, a learning signal, hidden params unreachable; any OpenEnv server also for session isolation and a grader or answer file its tools can read",
    )
    .argument(
      "<target>",
      "world id, variant (FILE or JSON), or http(s)://host:port of a proving serve or any OpenEnv server",
    )
    .option("--seeds <n>", "seeds per family × difficulty (default 2)", intOption("--seeds"))
    .option("--difficulty <n>", "difficulty (repeatable; default 1 and 3)", collectInt("--difficulty"))
    .option("--fuzz <n>", "malformed calls per tool (default 200)", intOption("--fuzz"))
    .option(
      "--signal-seeds <n>",
      "seeds of the middling agent per family × difficulty (default 8)",
      intOption("--signal-seeds"),
    )
    .option("--json", "print the report {target, world, ok, findings: [{id, title, status, evidence}]}")
    .action(async (target: string, flags: AuditFlags) => {
      const { auditEnvironment, auditForeign, formatAudit } = await import("../../audit/index.ts");
      const gym = await gymSource();
      const seeds = Array.from({ length: flags.seeds ?? 2 }, (_, i) => i);
      if (seeds.length === 0) throw configError("bad_audit_options", "--seeds must be at least 1");
      const common = {
        seeds,
        ...(flags.difficulty ? { difficulties: flags.difficulty } : {}),
        ...(flags.fuzz !== undefined ? { fuzzPerTool: flags.fuzz } : {}),
        ...(flags.signalSeeds !== undefined ? { signalSeeds: flags.signalSeeds } : {}),
      };
      let report: Awaited<ReturnType<typeof auditEnvironment>>;
      if (/^https?:\/\//i.test(target)) {
        const { connectAnyRemote } = await import("./remote-target.ts");
        const remote = await connectAnyRemote(target, process.env.PROVING_REMOTE_TOKEN, gym);
        const dispose = (env: unknown) => (env as { close(): Promise<void> }).close();
        try {
          // a server we did not write: the checks that need no policy of ours
          report = remote.foreign
            ? await auditForeign({
                ...common,
                world: gym.world(remote.world),
                environment: remote.environment,
                label: remote.url,
                maxActionBytes: 512 * 1024,
                dispose,
              })
            : await auditEnvironment({
                ...common,
                world: gym.world(remote.world),
                environment: remote.environment,
                label: remote.url,
                // within the limits the server declares (an older server declares none: its 1 MiB frames)
                ...(remote.limits ?? { maxActionBytes: 512 * 1024 }),
                dispose,
              });
        } finally {
          await remote.close();
        }
      } else if (gym.registry.hasWorld(target) && !/[/\\.](json|ya?ml)$/i.test(target)) {
        const world = gym.world(target);
        report = await auditEnvironment({ ...common, world, restore: gym.registry });
      } else if (/^\s*[[{]/.test(target) || /\.(json|ya?ml)$/i.test(target)) {
        const variant: JsonValue = readOneVariant(target, gym);
        const served = gym.target(undefined, variant);
        report = await auditEnvironment({
          ...common,
          world: served.world,
          environment: () => served.create(),
          label: served.id,
          restore: gym.registry,
        });
      } else {
        throw configError(
          "bad_audit_options",
          `audit: "${target.slice(0, 80)}" is no world (${gym
            .worlds()
            .map((w) => w.id)
            .join(", ")}), variant file or JSON, or http(s) URL`,
        );
      }
      if (flags.json) printJson(report);
      else process.stdout.write(`${formatAudit(report)}\n`);
      if (!report.ok) process.exitCode = 1;
    });
}
