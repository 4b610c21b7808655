/**
 * The optional dependencies: packages only some features need, installed by default (`npm install`
 * keeps them all, so the CLI has them) and left out by `npm install --omit=optional` (the light core:
 * `core`, `harness`, `worlds`, `runner`, `gym`, `testing` run without them). Each loads when the code
 * that needs it runs; where it is not installed, that code fails with `optional_dependency_missing`
 * naming the package to install — never at import.
 *
 * The loading itself stays at the call site (`import("pg")`, `createRequire(...)("isolated-vm")`):
 * this module only turns "not installed" into the coded error.
 */
import { ProvingError } from "./errors.ts";

/** Each optional dependency and what needs it (a test keeps this equal to package.json's `optionalDependencies`). */
export const OPTIONAL_DEPENDENCIES: Readonly<Record<string, string>> = {
  "better-sqlite3": "the SQLite store",
  pg: "the Postgres store",
  "isolated-vm": "the code sandbox (code-repair's workspace, generated rules)",
  esbuild: "agent modules (run in their own process) and generated rules",
  tsx: "TypeScript agent modules",
  bullmq: "the distributed trial queue",
  ioredis: "the distributed trial queue's shared rate limit",
  vega: "the report's charts",
  "vega-lite": "the report's charts",
  ai: "the LLM agents",
  "@ai-sdk/anthropic": "the LLM agents",
  "@ai-sdk/openai": "the LLM agents and provider embeddings",
  "@ai-sdk/openai-compatible": "the LLM agents",
  "@modelcontextprotocol/sdk": "the MCP server",
  hono: "the HTTP server (`serve`, MCP over HTTP)",
  "@hono/node-server": "the HTTP server (`serve`, MCP over HTTP)",
  ws: "the WebSocket server and client (`serve`, remote worlds)",
};

/** The package name of a module specifier (`tsx/esm/api` → `tsx`, `@scope/name/x` → `@scope/name`). */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The optional dependency whose absence made an import or a require fail, if that is what `err` is
 * (Node's `ERR_MODULE_NOT_FOUND` / `MODULE_NOT_FOUND` naming one of `OPTIONAL_DEPENDENCIES`).
 */
export function missingOptionalDependency(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== "object") return undefined;
  if (e.code !== "ERR_MODULE_NOT_FOUND" && e.code !== "MODULE_NOT_FOUND") return undefined;
  const m = /Cannot find (?:package|module) '([^']+)'/.exec(String(e.message));
  if (!m) return undefined;
  const name = packageName(m[1]!);
  return Object.hasOwn(OPTIONAL_DEPENDENCIES, name) ? name : undefined;
}

/** The coded error for an optional dependency that is not installed. */
export function optionalDependencyMissing(pkg: string, cause?: unknown): ProvingError {
  const needs = OPTIONAL_DEPENDENCIES[pkg] ?? "this feature";
  return new ProvingError(
    "optional_dependency_missing",
    `the package ${pkg} is not installed (an install with --omit=optional leaves it out); it is needed for ${needs}: npm install ${pkg}`,
    { cause, details: { package: pkg } },
  );
}

/**
 * Runs `load` (an import or require of an optional dependency, or of a module of ours built on one);
 * if it fails because an optional dependency is not installed, throws `optional_dependency_missing`
 * naming it. Any other failure is thrown as it is.
 */
export function loadOptional<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    const pkg = missingOptionalDependency(err);
    throw pkg === undefined ? err : optionalDependencyMissing(pkg, err);
  }
}

/** `loadOptional` for an asynchronous `load` (a dynamic `import()`). */
export async function importOptional<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const pkg = missingOptionalDependency(err);
    throw pkg === undefined ? err : optionalDependencyMissing(pkg, err);
  }
}
