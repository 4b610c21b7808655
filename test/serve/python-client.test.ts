/**
 * The Python example of docs/serving.md, exactly as written there, run by python3 against a live server with
 * our stdlib-only client (`clients/python/proving_client.py`) on its path; and that client's MCP-mode
 * calls and error shape. Under CI a missing python3 fails the test instead of skipping it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type RunningServer, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { skipWithoutPython } from "../support/python.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const CLIENT_DIR = join(ROOT, "clients", "python");

const skip = skipWithoutPython;

/** docs/serving.md's one ```python block. */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, "docs", "serving.md"), "utf8");
  const blocks = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, "docs/serving.md has one Python example");
  return blocks[0];
}

function runPython(code: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      "python3",
      ["-c", code],
      { env: { PATH: process.env.PATH ?? "", PYTHONPATH: CLIENT_DIR, ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

describe("the Python client and the docs example", { skip }, () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
  });
  after(() => server.close());

  test("the docs snippet runs as written and reads the verdict from state()", async () => {
    const { stdout } = await runPython(readmeSnippet(), { PROVING_URL: server.url });
    const lines = stdout.trim().split("\n");
    assert.equal(lines[0], "open");
    assert.equal(lines[1], "True []", "the denied case closed as denied passes with no violation");
    assert.equal(server.sessions.counts().http, 0, "the client closed its episode");
  });

  test("MCP mode from Python: list_tools and call_tool actions; errors carry code and errors list", async () => {
    const code = `
import json
from proving_client import GenericEnvClient, ServerError
env = GenericEnvClient(base_url=${JSON.stringify(server.url)})
r = env.reset(seed=-1, family="denied", difficulty=1)
tools = env.list_tools()
case_id = r.observation["context"]["case_id"]
got = env.call_tool("get_case", case_id=case_id)
missing = env.call_tool("get_case", case_id="C-nope")
try:
    env.reset(seed=-5)
    err = None
except ServerError as e:
    err = {"code": e.code, "status": e.status, "loc": e.errors[0]["loc"]}
print(json.dumps({"tools": [t["name"] for t in tools], "seed": env.state()["seed"], "ok": got["ok"],
                  "missing": missing["error"]["code"], "err": err}))
env.close()
`;
    const { stdout } = await runPython(code, {});
    const out = JSON.parse(stdout);
    assert.ok(out.tools.includes("get_case") && out.tools.includes("close_case"));
    assert.equal(out.seed, null, "seed -1 let the server pick one, which a client is not told");
    assert.equal(out.ok, true);
    assert.equal(out.missing, "not_found");
    assert.deepEqual(out.err, { code: "VALIDATION_ERROR", status: 422, loc: ["reset", "seed"] });
  });
});
