import type { JsonObject } from "../../core/json.ts";
import type { AdmissibleDeclaration, SeenValues } from "../shared/index.ts";
import { FIXES } from "./fixes.ts";

/**
 * The patches an agent could write now: for each source it has read (its latest content as read,
 * most recent read first), each rewrite of `FIXES` that changes it — the whole new content, as
 * `write_file` takes it. Only from what `read_file` showed: a file never read gets no patch.
 */
function patches(seen: SeenValues): JsonObject[] {
  const latest = new Map<string, string>();
  for (let i = seen.calls.length - 1; i >= 0; i--) {
    const { tool, result } = seen.calls[i];
    if (tool !== "read_file" || !result.ok) continue;
    const path = String(result.path);
    if (!latest.has(path) && typeof result.content === "string") latest.set(path, result.content);
  }
  const out: JsonObject[] = [];
  for (const [path, source] of latest) {
    for (const fix of FIXES) {
      const fixed = fix(source);
      if (fixed !== undefined && fixed !== source) out.push({ path, content: fixed });
    }
  }
  return out;
}

/**
 * code-repair@1's admissible actions: list the whole workspace, read each file in view (from the
 * task's file list and listings), write a patch `patches` derives from a source read, run the tests,
 * submit (the summary is free text). The patches are limited to the mechanical rewrites a deployed
 * agent could make from the text it read; no other edit is offered.
 */
export const CODE_REPAIR_ADMISSIBLE: AdmissibleDeclaration = {
  args: {
    "list_files.path": { none: true },
    "read_file.path": { from: ["path", "files"], limit: 16 },
    "submit.summary": { text: "Fixed the bug the tests and README describe." },
  },
  calls: { write_file: patches },
};
