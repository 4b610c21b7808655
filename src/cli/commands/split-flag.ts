import fs from "node:fs";
import { configError } from "../../core/errors.ts";
import { parseSplitFile, type SplitFile } from "../../curriculum/index.ts";

/** Reads a split file (YAML or JSON) named by `--splits`/`--curriculum`; `unreadable_file` / `bad_split_file`. */
export function readSplitFlag(file: string): SplitFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw configError("unreadable_file", `cannot read ${file}: ${(err as Error).message}`);
  }
  return parseSplitFile(text, file);
}
