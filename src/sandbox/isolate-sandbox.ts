/**
 * The isolated-vm sandbox behind `code-repair@1`: every run gets a fresh V8 isolate with a memory
 * limit and a time limit, no filesystem, network or process access (the isolate has none of Node's
 * globals; the harness traps the names and records who reached for them), and is disposed
 * afterwards, so nothing one run does is visible to the next. A run that breaks a limit ends with
 * status `timeout` or `memory_limit`, an escape of that kind, and the host goes on.
 *
 * It runs on the project's one isolated-vm host (`isolate-host.ts`), with no second try of a run.
 */
import { ProvingError } from "../core/errors.ts";
import type {
  CodeSandbox,
  SandboxEscape,
  SandboxRequest,
  SandboxRun,
  SandboxTestResult,
} from "../worlds/code-repair/sandbox.ts";
import { HARNESS_SOURCE, RESULT_GLOBAL } from "./harness-source.ts";
import { disposeIsolate, ISOLATED_VM, isolateHost } from "./isolate-host.ts";

export interface SandboxLimits {
  /** Wall-clock limit of one run, in ms (default 1000). */
  timeoutMs?: number;
  /** Heap limit of the isolate, in MiB (default 32; isolated-vm's minimum is 8). */
  memoryMb?: number;
}

const MAX_TESTS = 500;

/** What isolated-vm rejects a dynamic `import()` with (it has no module loader for scripts). */
const ENGINE_REFUSED_IMPORT = "Not supported";

function sanitize(raw: unknown): { tests: SandboxTestResult[]; escapes: SandboxEscape[] } {
  const out = { tests: [] as SandboxTestResult[], escapes: [] as SandboxEscape[] };
  const value = raw as { tests?: unknown; escapes?: unknown };
  if (Array.isArray(value?.tests)) {
    for (const t of value.tests.slice(0, MAX_TESTS)) {
      const r: SandboxTestResult = {
        file: String(t?.file ?? "").slice(0, 200),
        name: String(t?.name ?? "").slice(0, 200),
        passed: t?.passed === true,
      };
      if (typeof t?.error === "string") r.error = t.error.slice(0, 300);
      out.tests.push(r);
    }
  }
  const kinds = new Set(["global", "require", "import"]);
  if (Array.isArray(value?.escapes)) {
    for (const e of value.escapes.slice(0, 50)) {
      if (kinds.has(e?.kind))
        out.escapes.push({ kind: e.kind, detail: String(e?.detail ?? "").slice(0, 200) });
    }
  }
  return out;
}

/** A `CodeSandbox` on isolated-vm with the given limits. */
export function isolateSandbox(limits: SandboxLimits = {}): CodeSandbox {
  const host = isolateHost({
    timeoutMs: limits.timeoutMs ?? 1000,
    memoryMb: limits.memoryMb ?? 32,
    needs: "the code sandbox needs",
  });
  const { timeoutMs, memoryMb } = host;
  return {
    id: `${ISOLATED_VM} (timeout ${timeoutMs} ms, memory ${memoryMb} MiB)`,
    run(request: SandboxRequest): SandboxRun {
      const input = JSON.stringify({ files: request.files, tests: request.tests });
      const isolate = host.newIsolate();
      try {
        let refusedImport = false;
        const raw = host.runFresh(isolate, (context, limit) => {
          const script = isolate.compileScriptSync(
            `(function (INPUT) {\n"use strict";\nreturn (${HARNESS_SOURCE});\n})(${input})`,
            {
              filename: "proving-sandbox-harness.js",
            },
          );
          try {
            return script.runSync(context, limit);
          } catch (err) {
            // the engine's refusal of a dynamic import(), thrown once the script ended: the results stand
            if (host.brokenLimit(err, isolate) || String((err as Error)?.message) !== ENGINE_REFUSED_IMPORT)
              throw err;
            refusedImport = true;
            return context.evalSync(RESULT_GLOBAL, limit);
          }
        });
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(raw));
        } catch {
          parsed = {};
        }
        const run: SandboxRun = { status: "ok", ...sanitize(parsed) };
        if (refusedImport)
          run.escapes.push({ kind: "import", detail: "a dynamic import() (the engine refused it)" });
        return run;
      } catch (err) {
        const broken = host.brokenLimit(err, isolate);
        if (broken === "memory_limit") {
          return {
            status: "memory_limit",
            tests: [],
            escapes: [{ kind: "memory_limit", detail: `the code went past the ${memoryMb} MiB heap limit` }],
          };
        }
        if (broken === "timeout") {
          return {
            status: "timeout",
            tests: [],
            escapes: [{ kind: "timeout", detail: `the code ran past the ${timeoutMs} ms time limit` }],
          };
        }
        const message = String((err as Error)?.message ?? err);
        throw new ProvingError("sandbox_failed", `the code sandbox failed: ${message.slice(0, 300)}`);
      } finally {
        disposeIsolate(isolate);
      }
    },
  };
}
