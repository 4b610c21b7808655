import type { SandboxMode } from "./sandbox.ts";

/** The `cmd:`/`cmd-jsonl:` (and module agents') options every resolver reads from the gym's environment. */
export interface ProgramSettings {
  passEnv: string[];
  sandbox: SandboxMode;
  readOnly: string[];
}

/**
 * `PROVING_AGENT_ENV` (comma-separated names to pass: the CLI's `--agent-env`), `PROVING_AGENT_SANDBOX`
 * (the CLI's `--sandbox`: `auto`, the default; `require`, the default when `CI` is set; `off`) and
 * `PROVING_AGENT_READ` (paths the sandboxed program may read, separated like PATH), from the gym's
 * environment. Module agents read the same settings.
 */
export function programSettings(env: Readonly<Record<string, string | undefined>>): ProgramSettings {
  const list = (v: string | undefined, sep: string | RegExp) =>
    (v ?? "")
      .split(sep)
      .map((s) => s.trim())
      .filter(Boolean);
  // under CI a missing sandbox is an error, not a silent fallback
  const mode = env.PROVING_AGENT_SANDBOX ?? (env.CI === "true" || env.CI === "1" ? "require" : "auto");
  return {
    passEnv: list(env.PROVING_AGENT_ENV, ","),
    sandbox: mode === "require" || mode === "off" ? mode : "auto",
    readOnly: list(env.PROVING_AGENT_READ, ":"),
  };
}
