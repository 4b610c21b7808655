import { execFileSync } from "node:child_process";

function hasPython(): boolean {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A `describe`/`test` skip: the reason when python3 is missing (never on CI, where it must be there). */
export const skipWithoutPython: string | false =
  !hasPython() && process.env.CI !== "true" ? "python3 is not installed" : false;
