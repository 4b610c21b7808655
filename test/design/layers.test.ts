/**
 * The house's import direction, checked from the code's own imports: every file under src/ is parsed
 * (static imports and exports, `import()` and `require()` of string literals, type-only ones too)
 * and
 * - no file imports an area on a higher floor, nor a sibling on its own floor (FLOORS below);
 * - no files import each other in a circle (any strongly connected set of the file graph).
 * Known exceptions still to be mended are listed in ALLOWED, each with its reason; an entry that no
 * longer matches an import fails the test, so the list only shrinks.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import ts from "typescript";

const SRC = path.resolve(import.meta.dirname, "../../src");

/**
 * The areas of src/ from the ground floor up. An area may import areas on lower floors only; areas
 * on one floor are siblings and import none of each other. `index` is src/index.ts.
 */
const FLOORS: readonly (readonly string[])[] = [
  ["core"], // contracts, errors, hashing, clock, rng, the tool world: imports nothing of the project
  ["stats", "harness", "store", "protocol", "learners"], // stats draws with core's Rng
  ["worlds", "agents"],
  // the sandbox implements the port code-repair declares (CodeSandbox); the runner resolves agents
  ["sandbox", "runner", "customers"],
  ["rules", "testing", "serve"], // rules run in the sandbox; testing and serve drive the runner
  ["mcp"], // a transport over serve's auth and limits and the runner
  ["curriculum", "rigger", "learn", "audit", "queue", "train"], // the features
  ["report"], // renders what the features record (curriculum, learn and rigger sections)
  ["gym"], // the composition root: wires every built-in
  ["cli"],
  ["index"],
];

/**
 * Imports that break the rule today, by `from -> to` (files under src/), each with why it stays for
 * now. Mend the import, then delete its line.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map([
  // Not seen here (its specifier is computed): curriculum/generation-worker.mjs imports
  // gym/load-gym to rebuild the gym in its thread; the loader should be handed to the thread too.
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The area of a file under src/: its first folder, or the file's name without extension. */
function areaOf(rel: string): string {
  const [first, ...rest] = rel.split("/");
  return rest.length > 0 ? (first as string) : (first as string).replace(/\.[mc]?[jt]s$/, "");
}

interface Graph {
  /** Every src file (relative to src/) and the src files it imports. */
  edges: Map<string, string[]>;
  /** Relative imports that name no src file (a file outside src/, or a typo tsc would catch). */
  unresolved: string[];
}

function importGraph(): Graph {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const from = path.relative(SRC, file);
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith(".")) continue; // a package or node: builtin
      const target = path.resolve(path.dirname(file), fileName);
      if (known.has(target)) targets.add(path.relative(SRC, target));
      else unresolved.push(`${from} -> ${fileName}`);
    }
    edges.set(from, [...targets].sort());
  }
  return { edges, unresolved };
}

/** The strongly connected sets of more than one file (or a file importing itself): the circles. */
function circles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(set.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

const floorOf = new Map(FLOORS.flatMap((areas, floor) => areas.map((a) => [a, floor] as const)));
const graph = importGraph();

test("every area of src/ stands on one floor", () => {
  const areas = new Set([...graph.edges.keys()].map(areaOf));
  const missing = [...areas].filter((a) => !floorOf.has(a)).sort();
  assert.deepEqual(missing, [], `areas on no floor: add them to FLOORS (${missing.join(", ")})`);
  const listed = FLOORS.flat();
  assert.equal(new Set(listed).size, listed.length, "an area stands on two floors");
});

test("every relative import names a file under src/", () => {
  assert.deepEqual(graph.unresolved, []);
});

test("no import runs up the floors or across a floor, but the listed exceptions", () => {
  const broken: string[] = [];
  const used = new Set<string>();
  for (const [from, targets] of graph.edges) {
    const a = areaOf(from);
    for (const to of targets) {
      const b = areaOf(to);
      if (a === b) continue;
      if ((floorOf.get(b) as number) < (floorOf.get(a) as number)) continue;
      const edge = `${from} -> ${to}`;
      if (ALLOWED.has(edge)) used.add(edge);
      else broken.push(`${edge} (${a} on floor ${floorOf.get(a)}, ${b} on floor ${floorOf.get(b)})`);
    }
  }
  assert.deepEqual(broken, [], `imports that run up the floors or across one:\n${broken.join("\n")}`);
  const stale = [...ALLOWED.keys()].filter((e) => !used.has(e));
  assert.deepEqual(stale, [], "exceptions that no longer happen: delete them from ALLOWED");
});

test("no files import each other in a circle", () => {
  const found = circles(graph.edges).map((c) => c.join(" <-> "));
  assert.deepEqual(found, [], `file circles:\n${found.join("\n")}`);
});

test("the circle check finds a circle, a self-import, and no circle in a chain", () => {
  const g = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts", "d.ts"]],
    ["d.ts", ["d.ts"]],
    ["e.ts", ["a.ts"]],
  ]);
  assert.deepEqual(circles(g), [["d.ts"], ["a.ts", "b.ts", "c.ts"]]);
  assert.deepEqual(
    circles(
      new Map([
        ["a.ts", ["b.ts"]],
        ["b.ts", []],
      ]),
    ),
    [],
  );
});
