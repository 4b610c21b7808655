/** `proving fake-llm` as a process: prints its address, serves, stops on SIGTERM with its stats. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("proving fake-llm --script policy:cautious --json serves OpenAI and Anthropic formats", async () => {
  const child = spawn(
    process.execPath,
    [
      path.join(root, "bin/proving.mjs"),
      "fake-llm",
      "--script",
      "policy:cautious",
      "--host",
      "127.0.0.1",
      "--json",
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    let out = "";
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    for await (const chunk of child.stdout) {
      out += chunk;
      if (out.trimEnd().endsWith("}")) break;
    }
    const info = JSON.parse(out) as { url: string; baseURL: string; script: string };
    assert.match(info.baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal(info.script, "policy:cautious");
    const task = "Support case C-04242: the phone restarts. Handle the case.";
    const openai = (await (
      await fetch(`${info.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: task }] }),
      })
    ).json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { name: string; arguments: string } }> } }>;
    };
    const call = openai.choices[0].message.tool_calls[0].function;
    assert.deepEqual([call.name, JSON.parse(call.arguments)], ["get_case", { case_id: "C-04242" }]);
    const anthropic = (await (
      await fetch(`${info.baseURL}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", max_tokens: 50, messages: [{ role: "user", content: task }] }),
      })
    ).json()) as { content: Array<{ type: string; name: string }> };
    assert.equal(anthropic.content[0].name, "get_case");
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code] = await exited;
    assert.equal(code, 0);
    assert.match(stderr, /"requests":2/);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("proving fake-llm with an unknown policy exits 2 with a config error", async () => {
  const child = spawn(
    process.execPath,
    [path.join(root, "bin/proving.mjs"), "fake-llm", "--script", "policy:nope"],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  const [code] = await once(child, "exit");
  assert.equal(code, 2);
  assert.match(stderr, /no scripted policy "nope"/);
});
