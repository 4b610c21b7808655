/**
 * The optional dependencies (package.json `optionalDependencies`, left out by
 * `npm install --omit=optional`): the catalogue of what needs each equals package.json, and a failed
 * import of one becomes `optional_dependency_missing` naming the package, while any other failure
 * passes through as it is. `test/package/core-install.test.ts` installs the light core for real.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import {
  importOptional,
  loadOptional,
  missingOptionalDependency,
  OPTIONAL_DEPENDENCIES,
  ProvingError,
} from "../../src/core/index.ts";
import { REPO_ROOT } from "../support/cli.ts";

const pkg = JSON.parse(fs.readFileSync(`${REPO_ROOT}package.json`, "utf8")) as {
  optionalDependencies: Record<string, string>;
};

/** The error Node gives an import of a package that is not installed. */
const notFound = (specifier: string, code = "ERR_MODULE_NOT_FOUND") =>
  Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/x.js`), { code });

describe("optional dependencies", () => {
  test("OPTIONAL_DEPENDENCIES names every optional dependency of package.json (types packages aside)", () => {
    const declared = Object.keys(pkg.optionalDependencies).filter((p) => !p.startsWith("@types/"));
    assert.deepEqual(Object.keys(OPTIONAL_DEPENDENCIES).sort(), declared.sort());
  });

  test("a missing optional package (or a subpath of one) is recognised; others are not", () => {
    assert.equal(missingOptionalDependency(notFound("better-sqlite3")), "better-sqlite3");
    assert.equal(missingOptionalDependency(notFound("tsx/esm/api")), "tsx");
    assert.equal(missingOptionalDependency(notFound("@ai-sdk/openai")), "@ai-sdk/openai");
    const required = Object.assign(
      new Error("Cannot find module 'isolated-vm'\nRequire stack:\n- /app/x.js"),
      {
        code: "MODULE_NOT_FOUND",
      },
    );
    assert.equal(missingOptionalDependency(required), "isolated-vm");
    assert.equal(missingOptionalDependency(notFound("zod")), undefined); // a hard dependency
    assert.equal(missingOptionalDependency(new Error("Cannot find package 'pg'")), undefined); // no code
    assert.equal(missingOptionalDependency(undefined), undefined);
  });

  test("loadOptional / importOptional throw the coded error naming the package; other errors pass", async () => {
    const coded = (err: unknown) => {
      assert.ok(err instanceof ProvingError);
      assert.equal(err.code, "optional_dependency_missing");
      assert.equal(err.fault, "config");
      assert.match(err.message, /npm install pg\b/);
      assert.deepEqual(err.details, { package: "pg" });
      return true;
    };
    assert.throws(
      () =>
        loadOptional(() => {
          throw notFound("pg");
        }),
      coded,
    );
    await assert.rejects(() => importOptional(() => Promise.reject(notFound("pg"))), coded);
    const other = new Error("boom");
    await assert.rejects(
      () => importOptional(() => Promise.reject(other)),
      (err) => err === other,
    );
    assert.equal(
      loadOptional(() => 42),
      42,
    );
  });
});
