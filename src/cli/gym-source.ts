import fs from "node:fs";
import type { Command } from "commander";
import { configError, errorMessage } from "../core/errors.ts";
import type { Gym } from "../gym/gym.ts";
import { readDataFile } from "./context.ts";

/** How a command gets the gym: built once per CLI run, on first use. */
export type GymSource = () => Promise<Gym>;

/** Reads `PROVING_LLM_PRICES` (a JSON file of `{key: {input, output}}`), when set. */
function pricesFile(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw configError("bad_price", `cannot read PROVING_LLM_PRICES=${file}: ${errorMessage(err)}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw configError("bad_price", `PROVING_LLM_PRICES=${file}: expected an object of prices`);
  }
  return data as Record<string, unknown>;
}

/**
 * The CLI's composition root: the gym of `--gym FILE` (a gym description, `gym.describe()` as JSON or
 * YAML, whose plugins add worlds, rules, hand-offs and agent kinds) or the built-in gym, with the
 * process environment for agent kinds and the prices of `PROVING_LLM_PRICES` on top.
 */
export function cliGymSource(program: Command, env: NodeJS.ProcessEnv = process.env): GymSource {
  let gym: Promise<Gym> | undefined;
  return () => {
    gym ??= (async () => {
      const file = (program.opts() as { gym?: string }).gym ?? env.PROVING_GYM;
      // the worlds, agent kinds and plugins load on first use, not for `--help`
      const warn = (message: string) => process.stderr.write(`proving: warning: ${message}\n`);
      const built = file
        ? await (await import("../gym/load-gym.ts")).loadGym(readDataFile(file), {
            cwd: process.cwd(),
            env,
            warn,
          })
        : (await import("../gym/default-gym.ts")).defaultGym({ env, warn });
      built.prices.add(pricesFile(env.PROVING_LLM_PRICES));
      return built;
    })();
    return gym;
  };
}
