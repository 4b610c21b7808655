/**
 * The "Testing your own world" example of docs/testing.md runs as it is written: the block after the
 * `example: testing` marker, written into a project set up as docs/library.md tells a user to (its
 * `proving-ground` imports resolve to this checkout's source) and imported into this test file (its
 * node:test tests become this file's tests).
 */
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { namedExample } from "../docs/blocks.ts";
import { createDocsProject } from "../docs/project.ts";

const { code, file } = namedExample("testing");
assert.equal(file, "docs/testing.md");
assert.ok(code.split("\n").filter((l) => l.trim()).length <= 20, "the example stays short");
assert.ok(code.includes('from "proving-ground/testing"'), "it imports the testing area");

const project = createDocsProject();
try {
  await import(pathToFileURL(project.write("testing-example.ts", code)).href);
} finally {
  project.dispose();
}
