/**
 * The package as a user gets it: build, `npm pack`, install the tarball into a fresh project, then
 * import every export of package.json from plain Node ESM, type-check a TypeScript file importing
 * every export (`module`/`moduleResolution: nodenext`) with the checkout's tsc, check that every
 * import in our declarations resolves to declarations, probe what each export loads, and run the
 * installed `proving` bin, a TypeScript agent module included. The exports are read from
 * package.json, so a subpath added there is covered without editing this file.
 *
 * What it proves: the tarball holds what the exports, types and bin point at (and no source or
 * tests); the built JavaScript runs without the checkout, and without tsx unless an agent module is
 * TypeScript; `dependencies` are enough at run time and for the published types; no export, and not
 * the CLI, loads a heavy dependency it is not built on. The same tarball installed with
 * `npm install --omit=optional` (install scripts run) is the light core: no optional dependency, no
 * native module, ≤ 30 MB; `core`, `harness`, `worlds`, `testing` import and `gym` + `runner` run an
 * experiment in memory, while the SQLite store and code-repair's sandbox fail naming what to install.
 * What it does not prove: that the native modules (better-sqlite3, and any other dependency with a
 * binding.gyp) build on the user's machine. The install runs with `--ignore-scripts` (their install
 * scripts download a prebuilt binary or compile for minutes), and the checkout's own builds (same
 * version, same Node) are copied in instead. Dependencies come
 * from the npm cache that `npm ci` filled (`--prefer-offline`: the registry answers only for
 * what is not cached, such as the manifests of transitive dependencies on a fresh machine), with
 * whatever versions npm resolves today, as a user's install would; the checkout's lockfile is not used.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { REPO_ROOT } from "../support/cli.ts";
import { isHeavy, loadedPackages, unexpectedHeavy } from "./loaded-packages.ts";

interface PackageJson {
  name: string;
  version: string;
  bin: Record<string, string>;
  types: string;
  exports: Record<string, { types: string; import: string }>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
}

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as PackageJson;
const subpaths = Object.keys(pkg.exports);
const specifier = (subpath: string) => (subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment children get: not the test runner's, and of npm's script environment (when run
 * by `npm test`) only the configuration, less the parent project's prefix.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "NODE_TEST_CONTEXT" || k === "NODE_OPTIONS" || k === "INIT_CWD" || k.startsWith("PROVING_"))
      continue;
    const key = k.toLowerCase();
    if (key.startsWith("npm_") && !key.startsWith("npm_config_")) continue;
    if (
      ["npm_config_local_prefix", "npm_config_prefix", "npm_config_global", "npm_config_call"].includes(key)
    )
      continue;
    env[k] = v;
  }
  return env;
}

function run(file: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function ok(r: Run, what: string): Run {
  assert.equal(
    r.code,
    0,
    `${what} exited ${r.code}\n--- stdout:\n${r.stdout.slice(-4000)}\n--- stderr:\n${r.stderr.slice(-4000)}`,
  );
  return r;
}

/**
 * The install skipped install scripts, so no native module is built: copy the checkout's builds
 * (every `*.node` file of each dependency with a `binding.gyp`) into the same places, for the
 * packages installed at the checkout's version. Returns the packages copied.
 */
function copyNativeBuilds(from: string, to: string): string[] {
  const copied: string[] = [];
  const version = (dir: string) =>
    fs.existsSync(path.join(dir, "package.json"))
      ? (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version
      : undefined;
  for (const name of fs.readdirSync(path.join(from, "node_modules"))) {
    const src = path.join(from, "node_modules", name);
    const dst = path.join(to, "node_modules", name);
    if (!fs.existsSync(path.join(src, "binding.gyp")) || version(src) === undefined) continue;
    if (version(dst) !== version(src)) continue;
    for (const rel of fs.readdirSync(src, { recursive: true }) as string[]) {
      if (!rel.endsWith(".node") || rel.split(path.sep).includes("node_modules")) continue;
      fs.mkdirSync(path.dirname(path.join(dst, rel)), { recursive: true });
      fs.copyFileSync(path.join(src, rel), path.join(dst, rel));
    }
    copied.push(name);
  }
  return copied;
}

const node = (args: string[], cwd: string) => run(process.execPath, args, cwd);
const npm = (args: string[], cwd: string) => run("npm", args, cwd);

describe("npm pack → install into a fresh project → use", { timeout: 600_000 }, () => {
  let tmp: string;
  let app: string;
  let packed: { filename: string; files: { path: string }[] };

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "proving-pack-"));
    app = path.join(tmp, "app");
    fs.mkdirSync(app);
    ok(await node(["scripts/build.mjs"], REPO_ROOT), "npm run build");
    // the build ran just now; the lifecycle scripts would only run it again
    const pack = ok(
      await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], REPO_ROOT),
      "npm pack",
    );
    [packed] = JSON.parse(pack.stdout) as (typeof packed)[];
    fs.writeFileSync(
      path.join(app, "package.json"),
      `${JSON.stringify({ name: "proving-ground-user", private: true, type: "module" }, null, 2)}\n`,
    );
    // @types/node: what a TypeScript user of a Node library has anyway (the pinned dev version)
    ok(
      await npm(
        [
          "install",
          "--prefer-offline",
          "--ignore-scripts",
          "--no-audit",
          "--no-fund",
          "--no-package-lock",
          "--loglevel=error",
          path.join(tmp, packed.filename),
          `@types/node@${pkg.devDependencies["@types/node"]}`,
        ],
        app,
      ),
      "npm install <tarball>",
    );
    const copied = copyNativeBuilds(REPO_ROOT, app);
    assert.ok(copied.includes("better-sqlite3"), `native builds copied for: ${copied.join(", ")}`);
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("the tarball holds the build, the bin and the examples; every export target; no source or tests", () => {
    const files = new Set(packed.files.map((f) => f.path));
    const targets = [
      pkg.types,
      ...Object.values(pkg.bin),
      ...Object.values(pkg.exports).flatMap((e) => [e.types, e.import]),
    ];
    for (const target of targets) {
      assert.ok(files.has(path.normalize(target)), `${target} is in the tarball`);
    }
    assert.ok(
      [...files].some((f) => f.startsWith("dist/report/html/client/") && f.endsWith(".js")),
      "the report's browser scripts are copied into the build",
    );
    const stray = [...files].filter(
      (f) => /^(src|test|bench|scripts)\//.test(f) || f.endsWith(".tsbuildinfo"),
    );
    assert.deepEqual(stray, []);
    assert.ok(files.size < 1200, `${files.size} files`); // the build of ~560 modules (.js + .d.ts) and the examples
  });

  test("plain Node ESM imports every export, with the same names as the source", async () => {
    const script = [
      "const names = {};",
      ...subpaths.map(
        (s) =>
          `names[${JSON.stringify(s)}] = Object.keys(await import(${JSON.stringify(specifier(s))})).sort();`,
      ),
      "console.log(JSON.stringify(names));",
    ].join("\n");
    fs.writeFileSync(path.join(app, "import-all.mjs"), script);
    const names = JSON.parse(ok(await node(["import-all.mjs"], app), "node import-all.mjs").stdout) as Record<
      string,
      string[]
    >;
    for (const subpath of subpaths) {
      const source = pkg.exports[subpath]!.import.replace(/^\.\/dist\/(.+)\.js$/, "src/$1.ts");
      const expected = Object.keys(await import(pathToFileURL(path.join(REPO_ROOT, source)).href)).sort();
      assert.ok(expected.length > 0, `${source} exports something`);
      assert.deepEqual(names[subpath], expected, `${specifier(subpath)} exports what ${source} does`);
    }
  });

  test("a TypeScript project (nodenext) type-checks against every export's declarations", async () => {
    const lines = subpaths.map((s, i) => `import * as m${i} from ${JSON.stringify(specifier(s))};`);
    lines.push(`export const modules = [${subpaths.map((_, i) => `m${i}`).join(", ")}];`);
    // a type from the declarations, used: were it missing or `any`, this would not compile
    lines.push(`import type { Outcome } from "${pkg.name}/core";`);
    lines.push(`export const outcome: Outcome = "passed";`);
    lines.push("// @ts-expect-error not an outcome");
    lines.push(`export const wrong: Outcome = "not-an-outcome";`);
    fs.writeFileSync(path.join(app, "check.ts"), `${lines.join("\n")}\n`);
    // strict, so an export without declarations is an error (TS7016); skipLibCheck as most projects
    // have it (checking every dependency's declarations takes ~20 s of CPU here) — the next test
    // covers what that skips in our own declarations
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    };
    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["check.ts"] }),
    );
    const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    ok(await node([tsc, "-p", "."], app), "tsc -p . (module: nodenext)");
  });

  test("every module our declarations import resolves to declarations (nodenext), so no type is silently any", () => {
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
    };
    const dist = path.join(app, "node_modules", pkg.name, "dist");
    const unresolved: string[] = [];
    let checked = 0;
    for (const rel of fs.readdirSync(dist, { recursive: true }) as string[]) {
      if (!rel.endsWith(".d.ts")) continue;
      const file = path.join(dist, rel);
      for (const { fileName: spec } of ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true)
        .importedFiles) {
        if (spec.startsWith("node:")) continue; // ambient modules of @types/node
        checked++;
        const resolved = ts.resolveModuleName(spec, file, options, ts.sys).resolvedModule?.resolvedFileName;
        // e.g. a package without its own types and no @types/... dependency resolves to JavaScript
        if (!resolved || !/\.d\.[cm]?ts$/.test(resolved)) unresolved.push(`${rel}: "${spec}" → ${resolved}`);
      }
    }
    assert.ok(checked > 100, `${checked} imports checked`);
    assert.deepEqual(unresolved, []);
  });

  test("no export loads a heavy dependency it is not built on (the installed build)", async () => {
    // two probes at a time (each is a fresh process that only imports)
    for (let i = 0; i < subpaths.length; i += 2) {
      const batch = subpaths.slice(i, i + 2);
      const loads = await Promise.all(batch.map((s) => loadedPackages({ entry: specifier(s), cwd: app })));
      batch.forEach((subpath, j) => {
        const loaded = loads[j]!;
        const list = `${specifier(subpath)} loaded ${loaded.join(", ")}`;
        assert.ok(loaded.includes(pkg.name), list);
        assert.deepEqual(unexpectedHeavy(subpath, loaded), [], list);
      });
    }
  });

  test("the installed CLI (`proving worlds --json`) loads no heavy dependency", async () => {
    const bin = path.join(app, "node_modules", pkg.name, Object.values(pkg.bin)[0]!);
    const loaded = await loadedPackages({
      entry: bin,
      cwd: app,
      argv: ["proving", "worlds", "--json"],
      // the flag the bin otherwise re-runs itself with (isolated-vm), so the CLI runs in this process
      nodeArgs: ["--no-node-snapshot"],
    });
    assert.ok(loaded.includes("commander"), `the CLI ran: ${loaded.join(", ")}`);
    assert.deepEqual(
      loaded.filter((p) => isHeavy(p)),
      [],
      `loaded: ${loaded.join(", ")}`,
    );
    assert.ok(!loaded.includes("tsx"), "the installed CLI runs without tsx");
  });

  test("the installed bin: `proving worlds --json`", async () => {
    const bin = path.join(app, "node_modules/.bin/proving");
    const r = ok(await run(bin, ["worlds", "--json"], app), "proving worlds --json");
    const worlds = (JSON.parse(r.stdout) as { worlds: { id: string }[] }).worlds.map((w) => w.id);
    assert.ok(worlds.includes("device-support@1"), worlds.join(", "));
  });

  test("the installed bin runs a trial of a TypeScript agent module and records it", async () => {
    fs.writeFileSync(
      path.join(app, "agent.ts"),
      [
        `import type { Agent } from "${pkg.name}/core";`,
        `import policy from "./node_modules/${pkg.name}/examples/policy.mjs";`,
        `const agent: Agent = { ...(policy as Agent), id: "ts-policy" };`,
        "export default agent;",
        "",
      ].join("\n"),
    );
    const bin = path.join(app, "node_modules/.bin/proving");
    const args = [
      "run",
      "--agent",
      "./agent.ts",
      "--world",
      "device-support",
      "--family",
      "approved-replacement",
    ];
    args.push(
      "--difficulty",
      "1",
      "--trials",
      "1",
      "--no-report",
      "--no-progress",
      "--json",
      "--store",
      "s.db",
    );
    const r = ok(await run(bin, args, app), "proving run --agent ./agent.ts");
    const trials = (JSON.parse(r.stdout) as { trials: { agent: string; outcome: string }[] }).trials;
    assert.deepEqual(
      trials.map((t) => [t.agent, t.outcome]),
      [["ts-policy", "passed"]],
    );
    assert.ok(fs.statSync(path.join(app, "s.db")).size > 0, "the SQLite store was written");
  });

  describe("the light core: the same tarball installed with `npm install --omit=optional`", () => {
    let core: string;
    const optional = Object.keys(pkg.optionalDependencies);

    before(async () => {
      core = path.join(tmp, "core");
      fs.mkdirSync(core);
      fs.writeFileSync(
        path.join(core, "package.json"),
        `${JSON.stringify({ name: "proving-ground-core-user", private: true, type: "module" }, null, 2)}\n`,
      );
      // install scripts run (none should be left to run: every native module is optional)
      ok(
        await npm(
          [
            "install",
            "--omit=optional",
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            "--loglevel=error",
            path.join(tmp, packed.filename),
          ],
          core,
        ),
        "npm install --omit=optional <tarball>",
      );
    });

    test("no optional dependency is installed, no native module was built, ≤ 30 MB of node_modules", () => {
      const modules = path.join(core, "node_modules");
      const present = optional.filter((name) => fs.existsSync(path.join(modules, name)));
      assert.deepEqual(present, [], "optional dependencies installed");
      let bytes = 0;
      const native: string[] = [];
      for (const rel of fs.readdirSync(modules, { recursive: true }) as string[]) {
        const stat = fs.lstatSync(path.join(modules, rel));
        if (stat.isFile()) bytes += stat.size;
        if (rel.endsWith(".node") || path.basename(rel) === "binding.gyp") native.push(rel);
      }
      assert.deepEqual(native, [], "native modules or build files");
      assert.ok(bytes <= 30 * 1024 * 1024, `node_modules holds ${(bytes / 1024 / 1024).toFixed(1)} MB`);
    });

    test("core, harness, worlds, testing import; gym + runner run an experiment in memory; what needs an optional package says which", async () => {
      const script = [
        `import "${pkg.name}/core";`,
        `import "${pkg.name}/harness";`,
        `import "${pkg.name}/worlds";`,
        `import "${pkg.name}/testing";`,
        `import { defaultGym } from "${pkg.name}/gym";`,
        `import { parseExperiment, runExperiment } from "${pkg.name}/runner";`,
        "const gym = defaultGym();",
        "const run = async (world, agent) =>",
        "  (await runExperiment(parseExperiment({ worlds: [world], agents: [agent], trials: 1 }), gym.runOptions())).trials;",
        `const trials = await run("device-support@1", "cautious");`,
        // code-repair's workspace runs in isolated-vm: its trials end as infra errors that name it
        `const sandboxed = await run("code-repair@1", "fixer");`,
        "let store;",
        `try { await (await import("${pkg.name}/store")).openStore("s.db"); } catch (err) { store = { code: err.code, fault: err.fault, message: err.message }; }`,
        "console.log(JSON.stringify({",
        "  outcomes: [...new Set(trials.map((t) => t.outcome))], trials: trials.length,",
        "  sandboxed: [...new Set(sandboxed.map((t) => t.outcome + ': ' + t.reason))], store }));",
      ].join("\n");
      fs.writeFileSync(path.join(core, "experiment.mjs"), script);
      const out = JSON.parse(ok(await node(["experiment.mjs"], core), "node experiment.mjs").stdout) as {
        outcomes: string[];
        trials: number;
        sandboxed: string[];
        store: { code: string; fault: string; message: string };
      };
      assert.ok(out.trials > 0);
      assert.deepEqual(out.outcomes, ["passed"]);
      assert.equal(out.sandboxed.length, 1, out.sandboxed.join("\n"));
      assert.match(out.sandboxed[0]!, /^infra_error: .*npm install isolated-vm/);
      assert.equal(out.store.code, "optional_dependency_missing");
      assert.equal(out.store.fault, "config");
      assert.match(out.store.message, /npm install better-sqlite3/);
      assert.ok(!fs.existsSync(path.join(core, "s.db")), "no store file was made");
    });
  });
});
