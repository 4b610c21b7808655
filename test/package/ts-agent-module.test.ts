/**
 * TypeScript agent modules load whatever decides their module format: `.ts` under `"type": "module"`,
 * `.ts` with no package.json above it (compiled as CommonJS, unwrapped to its ES view) and `.mts`.
 * Here tsx is already registered (the tests run under it); the built CLI's path, where tsx loads only
 * for such a module, is covered by `pack.test.ts`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { importAgentModule } from "../../src/agents/import-module.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-ts-agent-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const AGENT = `const id: string = "typed";
export default { id, start: () => ({ act: async () => ({ tool: "wait", args: { seconds: 1 } }) }) };
`;

for (const [name, pkgType] of [
  ["esm/agent.ts", "module"],
  ["cjs/agent.ts", undefined],
  ["mts/agent.mts", undefined],
] as const) {
  test(`${name}${pkgType ? ` (type: ${pkgType})` : " (no package.json)"}: the default export is the agent`, async () => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (pkgType)
      fs.writeFileSync(path.join(path.dirname(file), "package.json"), JSON.stringify({ type: pkgType }));
    fs.writeFileSync(file, AGENT);
    const mod = await importAgentModule(file);
    const agent = mod.default as { id: string; start: unknown };
    assert.equal(agent.id, "typed");
    assert.equal(typeof agent.start, "function");
  });
}

test("a JavaScript module imports as it is", async () => {
  const file = path.join(dir, "plain.mjs");
  fs.writeFileSync(file, `export default { id: "plain" }; export const extra = 1;\n`);
  const mod = await importAgentModule(file);
  assert.deepEqual({ ...mod }, { default: { id: "plain" }, extra: 1 });
});
