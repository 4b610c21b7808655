import { pathToFileURL } from "node:url";
import { importOptional } from "../core/optional-dependency.ts";

const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * Imports an agent module by absolute path. Node 20 cannot run TypeScript itself: where no loader
 * handles `.ts` (the built CLI, a library user), a `.ts`/`.mts`/`.cts` file goes through tsx's
 * `tsImport`, so tsx (a dependency) loads only for TypeScript agents. Where tsx is already registered
 * (the checkout's CLI and tests), the plain import works and shares the caller's module graph. A
 * `.ts` file that tsx compiles as CommonJS (no `"type": "module"` above it) comes back as
 * `{default: {__esModule, default}}`; its ES module view is returned.
 */
export async function importAgentModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
    const { tsImport } = await importOptional(() => import("tsx/esm/api"));
    mod = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
  const inner = mod.default as { __esModule?: unknown } | undefined;
  return inner !== null && typeof inner === "object" && inner.__esModule === true
    ? (inner as Record<string, unknown>)
    : mod;
}
