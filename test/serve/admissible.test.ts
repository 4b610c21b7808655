/**
 * Admissible actions over the wire (opt-in): `"admissible": true` on a reset or step (HTTP and WS) is
 * answered `metadata.admissible_actions`; `/metadata` declares the capability; a world without it
 * refuses the request (422 VALIDATION_ERROR naming `admissible`); `RemoteEnvironment` passes the list
 * through, so `proving run --remote URL --agent learner:q` plays (real processes).
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Environment } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import {
  connectRemote,
  type RemoteEnvironment,
  ServeClient,
  type ServeTarget,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { parseJson, runCli, spawnCli } from "../support/cli.ts";
import { firstLine } from "./play.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-serve-admissible-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** device-support with its admissible actions hidden: a world that does not declare them. */
const withoutAdmissible: ServeTarget = {
  ...worldTarget(deviceSupport),
  create: () => {
    const env = deviceSupport.create();
    return new Proxy(env, {
      get(target, key) {
        if (key === "capabilities") return { ...target.capabilities, admissible: undefined };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Environment;
  },
};

type Listed = { tool: string; args: JsonObject }[];

test("admissible: true on HTTP and WS reset/step answers the same list; not asked, not sent", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const meta = (await (await fetch(`${server.url}/metadata`)).json()) as {
      capabilities?: { admissible_actions?: boolean };
    };
    assert.equal(meta.capabilities?.admissible_actions, true);
    const http = new ServeClient(server.url);
    const plain = await http.reset({ seed: 5, family: "lost-reply" });
    assert.equal(plain.metadata.admissible_actions, undefined, "not asked: not sent");
    const first = await http.reset({ seed: 5, family: "lost-reply", admissible: true });
    const list = first.metadata.admissible_actions as Listed;
    assert.ok(Array.isArray(list) && list.length > 0 && list.length <= 64);
    for (const a of list) assert.ok(typeof a.tool === "string" && typeof a.args === "object");
    // how the world spells actions, so a client canonicalises as it does
    assert.deepEqual(plain.metadata.admissible_canonical, undefined);
    const form = first.metadata.admissible_canonical as { key_args: string[]; texts: Record<string, string> };
    assert.ok(form.key_args.includes("idempotency_key"), JSON.stringify(form));
    assert.equal(typeof form.texts, "object");
    const id = String(first.metadata.episode_id);
    const action = list[0];
    const stepped = await http.step(id, action, { admissible: true });
    const after1 = stepped.metadata.admissible_actions as Listed;
    assert.ok(Array.isArray(after1));
    const unasked = await http.step(id, { tool: "list_tools", args: {} });
    assert.equal(unasked.metadata.admissible_actions, undefined);

    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const wsFirst = await ws.reset({ seed: 5, family: "lost-reply", admissible: true });
      assert.deepEqual(wsFirst.metadata.admissible_actions, list, "deterministic: same task, same list");
      const wsStep = await ws.step(action, { admissible: true });
      assert.deepEqual(wsStep.metadata.admissible_actions, after1);
      const wsPlain = await ws.step(action);
      assert.equal(wsPlain.metadata.admissible_actions, undefined);
      const bad = await ws.sendRaw(JSON.stringify({ type: "step", data: { ...action, admissible: "yes" } }));
      assert.equal(bad.type, "error");
      assert.equal((bad.data as { code: string }).code, "VALIDATION_ERROR");
    } finally {
      await ws.close();
    }
  } finally {
    await server.close();
  }
});

test("a world that declares no admissible actions refuses the request (HTTP 422, WS error) and says so in /metadata", async () => {
  const server = await startServer({ target: withoutAdmissible, port: 0 });
  try {
    const meta = (await (await fetch(`${server.url}/metadata`)).json()) as {
      capabilities?: { admissible_actions?: boolean };
    };
    assert.equal(meta.capabilities?.admissible_actions, false);
    const res = await fetch(`${server.url}/reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seed: 1, admissible: true }),
    });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; message: string };
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.match(body.message, /admissible/);
    const http = new ServeClient(server.url);
    const first = await http.reset({ seed: 1 });
    const id = String(first.metadata.episode_id);
    const step = await fetch(`${server.url}/step`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ episode_id: id, action: { tool: "list_tools", args: {} }, admissible: true }),
    });
    assert.equal(step.status, 422);
    const state = await http.state(id);
    assert.equal(state.step_count, 0, "a refused step steps nothing");
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      await assert.rejects(ws.reset({ seed: 1, admissible: true }), /admissible/);
    } finally {
      await ws.close();
    }
    // a remote environment of this server declares no admissible actions
    const remote = await connectRemote(server.url);
    const env = remote.environment(
      { world: deviceSupport.id } as never,
      deviceSupport,
    ) as unknown as RemoteEnvironment;
    assert.equal(env.capabilities.admissible, undefined);
    await remote.close();
  } finally {
    await server.close();
  }
});

test("proving run --remote URL --agent learner:q plays over the wire (real processes)", async () => {
  const child: ChildProcess = spawnCli([
    "serve",
    "--world",
    "device-support@1",
    "--port",
    "0",
    "--json",
    "--heartbeat-s",
    "0",
  ]);
  try {
    const { url } = JSON.parse(await firstLine(child)) as { url: string };
    const r = await runCli(
      [
        "run",
        "--remote",
        url,
        "--difficulty",
        "1",
        "--trials",
        "1",
        "--agent",
        "learner:q?seed=3&save=q.json",
        "--id",
        "remote-q",
        "--store",
        path.join(dir, "remote.db"),
        "--json",
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const trials = parseJson<{ trials: { outcome: string; reason?: string }[] }>(r).trials;
    assert.ok(trials.length > 0);
    for (const t of trials)
      assert.ok(t.outcome !== "infra_error" && t.outcome !== "missing", JSON.stringify(t));
    const saved = JSON.parse(fs.readFileSync(path.join(dir, "q.json"), "utf8")) as {
      history: { updates: number };
    };
    assert.equal(saved.history.updates, trials.length, "the learner learned from every remote trial");
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});
