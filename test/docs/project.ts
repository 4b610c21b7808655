/**
 * A throwaway project set up the way docs/library.md tells a user to: `"type": "module"`, the
 * tsconfig the page documents, `node_modules` linked to the checkout's, and `proving-ground` a
 * package whose exports point at this checkout's sources (so the docs are checked against the code
 * as it is now, not a stale build).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CodeBlock, codeBlocks, ROOT } from "./blocks.ts";

export interface DocsProject {
  dir: string;
  /** The tsconfig's compilerOptions, as docs/library.md writes them. */
  compilerOptions: Record<string, unknown>;
  /** Writes a block as a module of the project; returns its path. */
  write(name: string, code: string): string;
  dispose(): void;
}

/** The ```json block after `<!-- tsconfig -->` in docs/library.md. */
export function documentedTsconfig(): { compilerOptions: Record<string, unknown> } {
  const block = codeBlocks("docs/library.md").find((b: CodeBlock) => b.note === "tsconfig");
  if (!block) throw new Error("docs/library.md has no block marked <!-- tsconfig -->");
  return JSON.parse(block.code);
}

export function createDocsProject(): DocsProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-docs-"));
  const tsconfig = documentedTsconfig();
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (entry === "proving-ground" || entry.startsWith(".")) continue;
    fs.symlinkSync(path.join(ROOT, "node_modules", entry), path.join(modules, entry));
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, { types: string; import: string }>;
  };
  const self = path.join(modules, pkg.name);
  fs.mkdirSync(self);
  fs.symlinkSync(path.join(ROOT, "src"), path.join(self, "src"));
  const exportsToSource = Object.fromEntries(
    Object.entries(pkg.exports).map(([subpath, target]) => {
      const source = target.import.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts");
      return [subpath, { types: source, import: source }];
    }),
  );
  fs.writeFileSync(
    path.join(self, "package.json"),
    JSON.stringify({ name: pkg.name, type: "module", exports: exportsToSource }),
  );
  return {
    dir,
    compilerOptions: tsconfig.compilerOptions,
    write(name, code) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, code);
      return file;
    },
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
