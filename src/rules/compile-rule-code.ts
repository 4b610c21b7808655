import { createRequire, SourceMap } from "node:module";
import { ProvingError } from "../core/errors.ts";
import { hashString } from "../core/hash.ts";
import { missingOptionalDependency, optionalDependencyMissing } from "../core/optional-dependency.ts";
import { type RuleCodeFailure, type RuleCodeLocation, ruleCodeFailure } from "./rule-code-failure.ts";

/**
 * Compiling a generated rule: its TypeScript source (an ES module exporting hooks) becomes one
 * CommonJS-style function body with esbuild (types stripped, no bundling: nothing is read from disk),
 * with a source map so errors in a hook call point at the TypeScript line. A module that imports
 * anything (static `import`, `import()`, `require`) is refused here: the sandbox has no modules.
 */

/** A generated rule ready for the sandbox, identified by the sha256 of its source. */
export interface CompiledRuleCode {
  sha256: string;
  source: string;
  /** The compiled module body (CommonJS: assigns `module.exports`). */
  js: string;
  /** esbuild's source map of `js` (JSON). */
  map: string;
}

export type CompileResult = { ok: true; code: CompiledRuleCode } | { ok: false; failure: RuleCodeFailure };

/** sha256 (hex, 64 characters) of a rule's source: its identity in a variant spec and in the store. */
export function ruleCodeHash(source: string): string {
  return hashString(source, 64);
}

type Esbuild = typeof import("esbuild");
let esbuild: Esbuild | undefined;

function loadEsbuild(): Esbuild {
  if (esbuild) return esbuild;
  try {
    esbuild = createRequire(import.meta.url)("esbuild") as Esbuild;
  } catch (err) {
    if (missingOptionalDependency(err) === "esbuild") throw optionalDependencyMissing("esbuild", err);
    throw new ProvingError(
      "sandbox_unavailable",
      `compiling generated rules needs esbuild: ${(err as Error).message}`,
    );
  }
  return esbuild;
}

const MAX_SOURCE = 100_000;

function lineOf(source: string, line: number, column: number): RuleCodeLocation {
  const text = source.split("\n")[line - 1] ?? "";
  return { line, column, text: text.slice(0, 200) };
}

/** Compiles a rule's source; a syntax error or an import becomes a failure record. */
export function compileRuleCode(source: string): CompileResult {
  const sha256 = ruleCodeHash(source);
  if (typeof source !== "string" || source.trim() === "") {
    return {
      ok: false,
      failure: ruleCodeFailure("compile_error", "compile", "The rule's source is empty.", sha256),
    };
  }
  if (source.length > MAX_SOURCE) {
    return {
      ok: false,
      failure: ruleCodeFailure(
        "compile_error",
        "compile",
        `The source has ${source.length} characters, more than the ${MAX_SOURCE} a rule may have.`,
        sha256,
      ),
    };
  }
  let js: string;
  let map: string;
  try {
    const out = loadEsbuild().transformSync(source, {
      loader: "ts",
      format: "cjs",
      target: "es2022",
      sourcefile: "rule.ts",
      sourcemap: "external",
      supported: { "dynamic-import": false },
      logLevel: "silent",
    });
    js = out.code;
    map = out.map;
  } catch (err) {
    const errors = (
      err as { errors?: { text: string; location?: { line: number; column: number } | null }[] }
    ).errors;
    const first = errors?.[0];
    if (!first) throw new ProvingError("sandbox_failed", `esbuild failed: ${(err as Error).message}`);
    const loc = first.location ? lineOf(source, first.location.line, first.location.column + 1) : undefined;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error(s))` : "";
    return {
      ok: false,
      failure: ruleCodeFailure("compile_error", "compile", `${first.text}${more}.`, sha256, {
        ...(loc ? { location: loc } : {}),
      }),
    };
  }
  // esbuild turns every `import` (static or dynamic) into a require() call
  const requireAt = js.search(/\brequire\s*\(/);
  if (requireAt >= 0) {
    const spec = /\brequire\s*\(\s*(["'`])([^"'`]*)\1/.exec(js.slice(requireAt))?.[2];
    const pos = mapPosition(map, js.slice(0, requireAt).split("\n").length, 1);
    return {
      ok: false,
      failure: ruleCodeFailure(
        "escape",
        "compile",
        `The code imports ${spec ? `"${spec}"` : "a module"} (import, import() or require).`,
        sha256,
        {
          ...(pos ? { location: lineOf(source, pos.line, pos.column) } : {}),
          escapes: [{ name: "import", detail: spec ? `import of ${spec}` : "a dynamic import or require" }],
        },
      ),
    };
  }
  return { ok: true, code: { sha256, source, js, map } };
}

/** The source position (1-based) of a position in the compiled code (1-based), through the source map. */
export function mapPosition(
  map: string,
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  try {
    const entry = new SourceMap(JSON.parse(map)).findEntry(line - 1, Math.max(0, column - 1)) as {
      originalLine?: number;
      originalColumn?: number;
    };
    if (entry?.originalLine === undefined) return undefined;
    return { line: entry.originalLine + 1, column: (entry.originalColumn ?? 0) + 1 };
  } catch {
    return undefined;
  }
}

/** The source location of the first frame of the rule's code (`rule.js:L:C`) in an isolate's stack. */
export function locateInSource(
  code: CompiledRuleCode,
  stack: string,
  lineOffset: number,
): RuleCodeLocation | undefined {
  const m = /rule\.js:(\d+):(\d+)/.exec(stack);
  if (!m) return undefined;
  const pos = mapPosition(code.map, Number(m[1]) - lineOffset, Number(m[2]));
  return pos ? lineOf(code.source, pos.line, pos.column) : undefined;
}
