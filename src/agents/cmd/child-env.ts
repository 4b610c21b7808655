import type { EpisodeInfo } from "../../core/contracts.ts";

/**
 * What an external agent program's environment may hold by default: how to find programs and how to
 * talk (locale, time zone, terminal). Nothing secret: API keys, tokens, the store's path and the gym's
 * own settings stay out unless passed by name (`--agent-env NAME`, `passEnv`).
 */
export const DEFAULT_AGENT_ENV: readonly string[] = [
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TERM",
];

/** What the program is told about its episode, as environment variables (no task id, family or seed). */
export function episodeEnv(episode: EpisodeInfo): Record<string, string> {
  return {
    PROVING_EPISODE_ID: episode.episodeId,
    PROVING_WORLD: episode.world,
    PROVING_SAMPLING_SEED: String(episode.samplingSeed),
    PROVING_INSTRUCTION: episode.instruction,
  };
}

/**
 * The program's environment: the allowlisted names (`DEFAULT_AGENT_ENV` plus `passEnv`) taken from
 * `baseEnv` (the gym's), `HOME` and `TMPDIR` in its private directory, then `extra` (the protocol's
 * and the episode's variables).
 */
export function agentEnvironment(
  baseEnv: Readonly<Record<string, string | undefined>>,
  passEnv: readonly string[],
  home: string,
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...DEFAULT_AGENT_ENV, ...passEnv]) {
    const value = baseEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.HOME = home;
  env.TMPDIR = home;
  return { ...env, ...extra };
}
