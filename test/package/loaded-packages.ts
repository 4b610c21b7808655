/**
 * Which npm packages a fresh Node process loads (imported or required) when it imports one module:
 * the heavy-dependency check behind `lazy-imports.test.ts` (the source) and `pack.test.ts` (the
 * installed package).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The packages only some areas need; importing any other area must not load them. */
export const HEAVY_PACKAGES = [
  "ai",
  "@ai-sdk/*",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "vega",
  "vega-lite",
  "ws",
  "isolated-vm",
  // the SQLite store's native module: loaded when a store opens, so `./store` imports without it
  "better-sqlite3",
  // the scale-out store and queue: only a Postgres store or a distributed run needs them
  "pg",
  "bullmq",
  "ioredis",
] as const;

/**
 * The heavy packages an export of `package.json` may load on import, because its own code is built
 * on them. Every other export (and any added later) may load none until the code that needs one runs.
 */
export const HEAVY_ON_IMPORT: Record<string, readonly string[]> = {
  // the library root re-exports every area, the HTTP server, MCP and the LLM agents included; only
  // the report charts stay lazy there
  ".": HEAVY_PACKAGES.filter((p) => p !== "vega" && p !== "vega-lite"),
  "./serve": ["hono", "@hono/node-server", "ws"],
  "./mcp": ["@modelcontextprotocol/sdk", "hono", "@hono/node-server"],
};

export function isHeavy(pkg: string, patterns: readonly string[] = HEAVY_PACKAGES): boolean {
  return patterns.some((p) => (p.endsWith("/*") ? pkg.startsWith(p.slice(0, -1)) : pkg === p));
}

/** The package a resolved module URL belongs to (`.../node_modules/@scope/name/...` → `@scope/name`). */
export function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const [first, second] = url.slice(at + "/node_modules/".length).split("/");
  return first?.startsWith("@") ? `${first}/${second}` : first;
}

const RECORDER = new URL("./record-loads.mjs", import.meta.url).href;

export interface ProbeOptions {
  /** What to import: a file path or a bare specifier resolved from `cwd`. */
  entry: string;
  cwd: string;
  /** Register tsx first (to import the TypeScript source). */
  tsx?: boolean;
  /** JavaScript run after the import, with the module namespace as `m` (e.g. render a chart). */
  afterImport?: string;
  /** `process.argv` after the node executable (e.g. `["proving", "worlds"]` to import the CLI). */
  argv?: string[];
  /** Node options for the child, e.g. `--no-node-snapshot`, with which the CLI runs in-process. */
  nodeArgs?: string[];
}

/** Imports `entry` in a child process and returns the packages it loaded, sorted. */
export async function loadedPackages(opts: ProbeOptions): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-loads-"));
  const out = path.join(dir, "loads.txt");
  fs.writeFileSync(out, "");
  const entry = path.isAbsolute(opts.entry) ? pathToFileURL(opts.entry).href : opts.entry;
  const code = [
    `import cjs, { register } from "node:module";`,
    `import { appendFileSync } from "node:fs";`,
    `import { pathToFileURL } from "node:url";`,
    `register(${JSON.stringify(RECORDER)}, import.meta.url, { data: { out: ${JSON.stringify(out)} } });`,
    // what `require` (and `createRequire`) loads passes by the module hooks on Node 20: record it too
    "const resolveFilename = cjs._resolveFilename;",
    "cjs._resolveFilename = function (...args) {",
    "  const file = resolveFilename.apply(this, args);",
    `  if (file.includes("/node_modules/")) appendFileSync(${JSON.stringify(out)}, pathToFileURL(file).href + "\\n");`,
    "  return file;",
    "};",
    opts.tsx ? `(await import("tsx/esm/api")).register();` : "",
    `const m = await import(${JSON.stringify(entry)});`,
    opts.afterImport ?? "",
    // an import started in the background while the module evaluated has resolved by now
    "await new Promise((r) => setTimeout(r, 50));",
  ].join("\n");
  // a child of `node --test` must not report to the parent test runner
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [...(opts.nodeArgs ?? []), "--input-type=module", "-e", code, ...(opts.argv ?? [])],
        { cwd: opts.cwd, env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
        (err, _stdout, stderr) =>
          err
            ? reject(new Error(`importing ${opts.entry} failed (exit ${err.code}):\n${stderr}`))
            : resolve(),
      );
    });
    const urls = fs.readFileSync(out, "utf8").split("\n").filter(Boolean);
    return [...new Set(urls.map(packageOf).filter((p): p is string => p !== undefined))].sort();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The heavy packages `loaded` holds that the export `subpath` may not load on import. */
export function unexpectedHeavy(subpath: string, loaded: readonly string[]): string[] {
  const allowed = HEAVY_ON_IMPORT[subpath] ?? [];
  return loaded.filter((p) => isHeavy(p) && !isHeavy(p, allowed));
}
