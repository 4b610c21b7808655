/**
 * `proving serve` from the command line: the operator token comes from `--operator-token` or
 * `PROVING_SERVE_OPERATOR_TOKEN`; a client without it is not told the seed the server chose.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { spawnCli } from "../support/cli.ts";
import { firstLine } from "./play.ts";

function serve(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawnCli(["serve", "--world", "device-support@1", ...args], env);
}

async function bareReset(url: string, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/reset`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: "{}",
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { metadata: Record<string, unknown> }).metadata;
}

for (const how of ["flag", "env"] as const) {
  test(`serve: the operator token by ${how === "flag" ? "--operator-token" : "PROVING_SERVE_OPERATOR_TOKEN"}`, async () => {
    const child =
      how === "flag"
        ? serve(["--port", "0", "--json", "--heartbeat-s", "0", "--operator-token", "op-cli"])
        : serve(["--port", "0", "--json", "--heartbeat-s", "0"], { PROVING_SERVE_OPERATOR_TOKEN: "op-cli" });
    try {
      const { url } = JSON.parse(await firstLine(child)) as { url: string };
      assert.equal((await bareReset(url)).seed, undefined, "a client is not told the server's seed");
      assert.equal(typeof (await bareReset(url, "op-cli")).seed, "number", "the operator is");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
}

test("serve: an operator token equal to the client token is refused", async () => {
  const child = serve(["--port", "0", "--token", "same", "--operator-token", "same"]);
  let err = "";
  child.stderr?.on("data", (c) => {
    err += String(c);
  });
  const [code] = await once(child, "exit");
  assert.notEqual(code, 0);
  assert.match(err, /must differ/);
});
