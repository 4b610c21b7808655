import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ownedTempDir } from "../owned-temp-dir.ts";

/**
 * An empty directory of the episode's own (the program's working directory and `HOME`), made when
 * the program starts and removed, with whatever it wrote there, when the trial ends (one a killed
 * process left is removed by the next process that makes one: `ownedTempDir`).
 */
export class PrivateDir {
  readonly path: string;

  constructor(parent: string = os.tmpdir()) {
    this.path = ownedTempDir("proving-agent-", parent);
  }

  remove(): void {
    try {
      fs.rmSync(this.path, { recursive: true, force: true });
    } catch {
      // left for the OS's temp cleaner
    }
  }
}

/**
 * The command with each word that names an existing file relative to `cwd` (the run's directory)
 * made absolute, so `python my_agent.py` still finds its program from a private working directory.
 * Words with shell syntax in them are left as they are. Returns the command and the files it named.
 */
export function absolutizeCommand(command: string, cwd: string): { command: string; files: string[] } {
  const files: string[] = [];
  const words = command.split(/(\s+)/).map((word) => {
    if (word.trim() === "" || !/^[\w./@+=:,-]+$/.test(word) || path.isAbsolute(word)) {
      if (path.isAbsolute(word) && safeExists(word)) files.push(word);
      return word;
    }
    const value = word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
    const prefix = word.slice(0, word.length - value.length);
    if (value === "" || !value.includes(".")) return word;
    const full = path.resolve(cwd, value);
    if (!safeExists(full)) return word;
    files.push(full);
    return `${prefix}${full}`;
  });
  return { command: words.join(""), files };
}

function safeExists(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
