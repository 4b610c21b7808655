/**
 * The error catalogue holds every code the source raises, each once with one fault, and nothing the
 * source never raises; `docs/errors.md` is the catalogue's table.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import {
  callerFaulted,
  ERROR_CATALOGUE,
  type ErrorCode,
  FAULTS,
  WIRE_ERRORS,
} from "../../src/core/error-catalogue.ts";
import { renderErrorDoc } from "../../src/core/error-doc.ts";
import { configError, internalError, ProvingError } from "../../src/core/errors.ts";
import { TOOL_ERRORS } from "../../src/core/tool-error-catalogue.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SRC = join(ROOT, "src");
const CATALOGUE_FILES = new Set([
  "src/core/error-catalogue.ts",
  "src/core/tool-error-catalogue.ts",
  "src/core/error-doc.ts",
]);
const DOC = join(ROOT, "docs", "errors.md");

/**
 * Codes in the catalogue that no source raises yet, with who will. Each must stay unraised while it
 * is listed here (so the entry is removed once its raiser lands).
 */
const PENDING: Readonly<Record<string, string>> = {};

const ERROR_HELPERS = new Set(["ProvingError", "configError", "internalError", "ServeClientError"]);

interface Scan {
  /** Codes passed as literals to ProvingError / configError / internalError / ServeClientError. */
  raised: Map<string, string[]>;
  /** Codes passed as literals to `new ServeError(...)`. */
  wire: Map<string, string[]>;
  /** Codes of error observations: `toolError(...)`, `{code, ..., retryable}` objects, rule `code` params. */
  tool: Map<string, string[]>;
  /** Every string literal outside the catalogue files. */
  literals: Set<string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The string literals an expression can evaluate to (`"a"`, `x ? "a" : "b"`, `opts.code ?? "a"`). */
function literalsOf(node: ts.Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node)) return literalsOf(node.expression);
  if (ts.isConditionalExpression(node)) return [...literalsOf(node.whenTrue), ...literalsOf(node.whenFalse)];
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)
    return literalsOf(node.right);
  return [];
}

function calleeName(node: ts.CallExpression | ts.NewExpression): string {
  const e = node.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return "";
}

function scanSources(): Scan {
  const scan: Scan = { raised: new Map(), wire: new Map(), tool: new Map(), literals: new Set() };
  const add = (map: Map<string, string[]>, code: string, where: string) =>
    map.set(code, [...(map.get(code) ?? []), where]);
  for (const file of sourceFiles(SRC)) {
    const rel = relative(ROOT, file);
    if (CATALOGUE_FILES.has(rel)) continue;
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const where = (n: ts.Node) => `${rel}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) scan.literals.add(node.text);
      if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments?.length) {
        const name = calleeName(node);
        const first = node.arguments[0];
        if (ERROR_HELPERS.has(name)) for (const c of literalsOf(first)) add(scan.raised, c, where(node));
        if (name === "ServeError") for (const c of literalsOf(first)) add(scan.wire, c, where(node));
        if (name === "toolError") for (const c of literalsOf(first)) add(scan.tool, c, where(node));
      }
      if (ts.isObjectLiteralExpression(node)) {
        const props = new Map<string, ts.Expression>();
        for (const p of node.properties) {
          if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)))
            props.set(p.name.text, p.initializer);
        }
        const code = props.get("code");
        // an error observation ({code, message, retryable}) or a rule's refusal
        if (code && props.has("retryable")) for (const c of literalsOf(code)) add(scan.tool, c, where(node));
        // a rule's `code` parameter: the code its error observations carry by default
        if (code && /^z\./.test(code.getText(source))) {
          const m = /\.default\(\s*"([^"]+)"\s*\)/.exec(code.getText(source));
          if (m) add(scan.tool, m[1], where(node));
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return scan;
}

const scan = scanSources();
const list = (m: Map<string, string[]>, codes: string[]) =>
  codes.map((c) => `${c} (${m.get(c)?.join(", ")})`);

describe("the error catalogue and the source tree", () => {
  test("the scan sees the source (a guard against a scanner that finds nothing)", () => {
    assert.ok(scan.raised.size > 40, `only ${scan.raised.size} raised codes found`);
    assert.ok(scan.wire.has("VALIDATION_ERROR") && scan.tool.has("invalid_argument"));
  });

  test("every code raised in src/ is in the catalogue", () => {
    const missing = [...scan.raised.keys()].filter((c) => !Object.hasOwn(ERROR_CATALOGUE, c));
    assert.deepEqual(list(scan.raised, missing), [], "raised but not catalogued");
    const wire = [...scan.wire.keys()].filter((c) => !Object.hasOwn(WIRE_ERRORS, c));
    assert.deepEqual(list(scan.wire, wire), [], "wire codes not catalogued");
    const tool = [...scan.tool.keys()].filter((c) => !Object.hasOwn(TOOL_ERRORS, c));
    assert.deepEqual(list(scan.tool, tool), [], "tool error codes not catalogued");
  });

  test("every catalogue entry is raised somewhere (no dead entries)", () => {
    const viaWire = new Set<string>(Object.values(WIRE_ERRORS).map((w) => w.remote));
    const dead = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
      (c) => !scan.literals.has(c) && !viaWire.has(c) && !Object.hasOwn(PENDING, c),
    );
    assert.deepEqual(dead, [], "catalogued but never raised in src/");
    assert.deepEqual(
      Object.keys(WIRE_ERRORS).filter((c) => !scan.literals.has(c)),
      [],
      "wire codes no server answers",
    );
    assert.deepEqual(
      Object.keys(TOOL_ERRORS).filter((c) => !scan.literals.has(c)),
      [],
      "tool error codes no tool answers",
    );
  });

  test("a pending code is catalogued and not raised yet (drop it from PENDING once it is)", () => {
    for (const [code, by] of Object.entries(PENDING)) {
      assert.ok(Object.hasOwn(ERROR_CATALOGUE, code), `${code} is not catalogued`);
      assert.ok(!scan.literals.has(code), `${code} is raised now (${by}): remove it from PENDING`);
    }
    assert.equal(ERROR_CATALOGUE.world_crashed.fault, "world");
  });
});

describe("the catalogue's entries", () => {
  test("each entry has one known fault and a one-line meaning", () => {
    for (const [code, e] of Object.entries(ERROR_CATALOGUE)) {
      assert.match(code, /^[a-z][a-z0-9_]*$/, code);
      assert.ok(FAULTS.includes(e.fault), `${code}: ${e.fault}`);
      assert.ok(e.meaning.length > 10 && !e.meaning.includes("\n"), `${code}: ${e.meaning}`);
    }
    for (const [code, e] of [...Object.entries(WIRE_ERRORS), ...Object.entries(TOOL_ERRORS)])
      assert.ok(e.meaning.length > 5 && !e.meaning.includes("\n"), `${code}: ${e.meaning}`);
  });

  test("the three sections share no code", () => {
    const errors = new Set(Object.keys(ERROR_CATALOGUE));
    const tools = Object.keys(TOOL_ERRORS);
    assert.deepEqual(
      tools.filter((c) => errors.has(c)),
      [],
    );
    assert.deepEqual(
      Object.keys(WIRE_ERRORS).filter((c) => errors.has(c) || tools.includes(c)),
      [],
    );
  });

  test("a wire code's client error is the caller's for a 4xx and infrastructure otherwise", () => {
    for (const [wire, e] of Object.entries(WIRE_ERRORS)) {
      const fault = ERROR_CATALOGUE[e.remote].fault;
      if (callerFaulted(e.status)) assert.ok(fault === "config" || fault === "agent", `${wire}: ${fault}`);
      else assert.equal(fault, "infrastructure", wire);
      assert.match(e.remote, /^remote_/);
    }
  });

  test("a ProvingError takes its fault from the catalogue", () => {
    const e = new ProvingError("agent_exited", "the program exited", { details: { code: 1 } });
    assert.equal(e.fault, "agent");
    assert.equal(e.message, "the program exited");
    assert.deepEqual(e.details, { code: 1 });
    const cause = new Error("inner");
    const wrapped = new ProvingError("store_failed", "db", { cause });
    assert.equal(wrapped.message, "db");
    assert.equal(wrapped.fault, "infrastructure");
    assert.equal(wrapped.cause, cause);
    // no caller names the fault: the (code, fault, message, options) form of 0.1.0 is gone
    // @ts-expect-error a fault is not an argument, not even the catalogue's own
    const legacy = new ProvingError("store_failed", "infrastructure", "db");
    assert.equal(legacy.fault, "infrastructure", "whatever is passed, the fault is the table's");
    assert.equal(configError("bad_flag", "x").fault, "config");
    assert.equal(internalError("not_reset", "x").fault, "internal");
  });
});

describe("docs/errors.md", () => {
  /** The rows of every Markdown table in a document, cells trimmed (formatting-independent). */
  const rows = (markdown: string) =>
    markdown
      .split("\n")
      .filter((l) => l.startsWith("|") && !/^\|[\s|:-]+\|$/.test(l))
      .map((l) =>
        l
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim())
          .join(" | "),
      );
  const headings = (markdown: string) => markdown.split("\n").filter((l) => l.startsWith("#"));

  test("is the catalogue's table", () => {
    const expected = renderErrorDoc();
    if (process.env.PROVING_WRITE_DOCS === "1") writeFileSync(DOC, expected);
    const actual = readFileSync(DOC, "utf8");
    assert.deepEqual(
      rows(actual),
      rows(expected),
      "docs/errors.md is out of date: PROVING_WRITE_DOCS=1 node --import tsx --test test/core/error-catalogue.test.ts",
    );
    assert.deepEqual(headings(actual), headings(expected));
  });

  test("lists every code, and the README links it", () => {
    const doc = readFileSync(DOC, "utf8");
    for (const code of [
      ...Object.keys(ERROR_CATALOGUE),
      ...Object.keys(WIRE_ERRORS),
      ...Object.keys(TOOL_ERRORS),
    ])
      assert.ok(doc.includes(`| \`${code}\``), code);
    assert.match(readFileSync(join(ROOT, "README.md"), "utf8"), /docs\/errors\.md/);
  });
});
