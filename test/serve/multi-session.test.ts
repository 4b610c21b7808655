/**
 * Several sessions per client (issue 26), over real sockets: a group reset (HTTP and WS) opens N
 * sessions on the identical task; `step_batch` steps many sessions per message, answers in order and
 * keeps each session's error its own; forks continue an episode from its saved state, independent and
 * deterministic; `GET /group` reports how the members ended; every new session counts against
 * --max-sessions; a WS batch cannot reach another connection's sessions; closing a WS closes them all;
 * with a store, a fork is its own trial that says where it was forked from and replays from the task.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { AgentSession, Observation, TaskObservation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { openCurriculumStore, readSplitFile } from "../../src/curriculum/index.ts";
import { ServedCurriculum } from "../../src/curriculum/serve-task-source.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { runTrial } from "../../src/runner/index.ts";
import {
  ServeClient,
  type StepEnvelope,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { caseIdOf, eventually, replaying } from "./play.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-multi-session-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

type Entry = StepEnvelope & { episode_id: string; error?: { code: string; message: string } };

async function post<T = JsonObject>(
  url: string,
  route: string,
  body: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function agentFor(policy: string, first: StepEnvelope): Promise<AgentSession> {
  const obs = first.observation as TaskObservation;
  return deviceSupport.policies[policy].start({
    episodeId: "test",
    world: deviceSupport.id,
    instruction: obs.instruction,
    tools: obs.tools,
    samplingSeed: 0,
  });
}

/** Plays each member with its policy, all members stepped by one batch per round. */
async function playBatched(
  members: Entry[],
  policies: string[],
  batch: (steps: JsonObject[]) => Promise<Entry[]>,
): Promise<Entry[]> {
  const agents = await Promise.all(members.map((m, i) => agentFor(policies[i], m)));
  const current = [...members];
  for (let round = 0; round < 100 && current.some((c) => !c.done); round++) {
    const live = current.map((c, i) => ({ c, i })).filter(({ c }) => !c.done);
    const steps = await Promise.all(
      live.map(async ({ c, i }) => {
        const a = await agents[i].act(c.observation as Observation);
        return { episode_id: c.episode_id, action: { tool: a.tool, args: a.args } } as JsonObject;
      }),
    );
    const results = await batch(steps);
    assert.equal(results.length, live.length);
    for (const [k, { i }] of live.entries()) {
      assert.equal(results[k].episode_id, current[i].episode_id, "replies in request order");
      assert.equal(results[k].error, undefined, JSON.stringify(results[k].error));
      current[i] = results[k];
    }
  }
  return current;
}

describe("several sessions per client", () => {
  test("HTTP: a group of 4 on one task, stepped by /step_batch, reported by GET /group", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    try {
      const { status, body } = await post<{ group_id: string; episodes: Entry[] }>(server.url, "/reset", {
        family: "denied",
        seed: 7,
        group: 4,
      });
      assert.equal(status, 200);
      assert.equal(body.episodes.length, 4);
      const ids = body.episodes.map((e) => e.episode_id);
      assert.equal(new Set(ids).size, 4, "each member its own episode");
      const tasks = new Set(body.episodes.map((e) => e.metadata.task_id));
      assert.deepEqual([...tasks], ["device-support@1/denied/d1/s7"], "the identical task");
      for (const e of body.episodes) assert.deepEqual(e.observation, body.episodes[0].observation);
      const ended = await playBatched(
        body.episodes,
        ["cautious", "cautious", "skip-approval", "cautious"],
        async (steps) =>
          (await post<{ results: Entry[] }>(server.url, "/step_batch", { steps })).body.results,
      );
      assert.ok(ended.every((e) => e.done));
      const group = (await (await fetch(`${server.url}/group?group_id=${body.group_id}`)).json()) as {
        task_id: string;
        members: { episode_id: string; done: boolean; outcome: string; reward: number }[];
        finished: boolean;
        all_passed: boolean;
        all_failed: boolean;
      };
      assert.equal(group.task_id, "device-support@1/denied/d1/s7");
      assert.deepEqual(
        group.members.map((m) => [m.episode_id, m.done, m.outcome]),
        [
          [ids[0], true, "passed"],
          [ids[1], true, "passed"],
          [ids[2], true, "violated"],
          [ids[3], true, "passed"],
        ],
      );
      assert.deepEqual([group.finished, group.all_passed, group.all_failed], [true, false, false]);
      const unknown = await fetch(`${server.url}/group?group_id=grp-nope`);
      assert.equal(unknown.status, 404);
      // a group without a seed: the server draws one seed for all members
      const bare = await post<{ episodes: Entry[] }>(server.url, "/reset", { group: 2 });
      assert.equal(bare.body.episodes[0].metadata.seed, bare.body.episodes[1].metadata.seed);
      assert.equal(bare.body.episodes[0].metadata.task_id, bare.body.episodes[1].metadata.task_id);
    } finally {
      await server.close();
    }
  });

  test("a batch answers every entry in order; one session's error is its own entry", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    try {
      const { body } = await post<{ episodes: Entry[] }>(server.url, "/reset", { seed: 3, group: 2 });
      const [a, b] = body.episodes.map((e) => e.episode_id);
      const get = { tool: "get_case", args: { case_id: "C-1" } };
      const { status, body: reply } = await post<{ results: Entry[] }>(server.url, "/step_batch", {
        steps: [
          { episode_id: a, action: get },
          { episode_id: "ep-not-mine", action: get },
          { episode_id: b, action: { nope: 1 } },
          { episode_id: b, action: get, admissible: true },
          { action: get },
          { episode_id: a, action: get },
        ],
      });
      assert.equal(status, 200);
      const r = reply.results;
      assert.deepEqual(
        r.map((x) => [x.episode_id, x.error?.code ?? null]),
        [
          [a, null],
          ["ep-not-mine", "SESSION_ERROR"],
          [b, "VALIDATION_ERROR"],
          [b, null],
          ["", "VALIDATION_ERROR"],
          [a, null],
        ],
      );
      assert.equal(r[0].metadata.step_count, 1);
      assert.equal(r[5].metadata.step_count, 2, "two entries of one session run in order");
      assert.equal(r[3].metadata.step_count, 1);
      assert.ok(Array.isArray(r[3].metadata.admissible_actions));
      assert.equal(r[0].metadata.admissible_actions, undefined);
      const tooMany = await post(server.url, "/step_batch", {
        steps: Array.from({ length: 257 }, () => ({ episode_id: a, action: get })),
      });
      assert.equal(tooMany.status, 422);
      assert.equal((await post(server.url, "/step_batch", { steps: "x" })).status, 422);
    } finally {
      await server.close();
    }
  });

  test("forks continue from the saved state: independent, deterministic, the parent untouched", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    try {
      const reset = await post<StepEnvelope>(server.url, "/reset", { family: "needs-approval", seed: 2 });
      const parent = String(reset.body.metadata.episode_id);
      const agent = await agentFor("cautious", reset.body);
      let obs = reset.body.observation;
      for (let i = 0; i < 2; i++) {
        const a = await agent.act(obs as Observation);
        obs = (await post<StepEnvelope>(server.url, "/step", { episode_id: parent, action: a })).body
          .observation;
      }
      const stepsBefore = (
        (await (await fetch(`${server.url}/state?episode_id=${parent}`)).json()) as JsonObject
      ).step_count;
      const { status, body } = await post<{ episodes: Entry[] }>(server.url, "/fork", {
        episode_id: parent,
        n: 2,
      });
      assert.equal(status, 200);
      assert.equal(body.episodes.length, 2);
      const [f1, f2] = body.episodes;
      assert.notEqual(f1.episode_id, f2.episode_id);
      assert.deepEqual(f1.observation, obs, "the parent's latest observation");
      assert.deepEqual(f1.metadata.forked_from, { episode_id: parent, step_count: 2 });
      assert.equal(f1.metadata.step_count, 2);
      assert.equal(f1.metadata.state_hash, f2.metadata.state_hash);
      // the parent's agent plays fork 1 to its end; fork 2 takes the same actions in one batch
      const sent: JsonObject[] = [];
      const one: Entry[] = [];
      let current: Entry = f1;
      while (!current.done && sent.length < 100) {
        const a = await agent.act(current.observation as Observation);
        const action = { tool: a.tool, args: a.args } as JsonObject;
        sent.push(action);
        const next = await post<StepEnvelope>(server.url, "/step", { episode_id: f1.episode_id, action });
        current = { ...next.body, episode_id: f1.episode_id };
        one.push(current);
      }
      assert.ok(current.done);
      assert.ok(current.metadata.verdict);
      const two = (
        await post<{ results: Entry[] }>(server.url, "/step_batch", {
          steps: sent.map((action) => ({ episode_id: f2.episode_id, action })),
        })
      ).body.results;
      const strip = (e: Entry) => ({ ...e, episode_id: "", metadata: { ...e.metadata, episode_id: "" } });
      assert.deepEqual(two.map(strip), one.map(strip), "identical, step by step, verdict included");
      // the parent did not move, and plays on by itself
      const state = (await (await fetch(`${server.url}/state?episode_id=${parent}`)).json()) as JsonObject;
      assert.equal(state.step_count, stepsBefore);
      assert.equal(state.done, false);
      // forks of an ended episode, of an unknown one, or past 64 are refused
      assert.equal((await post(server.url, "/fork", { episode_id: f1.episode_id, n: 1 })).status, 409);
      assert.equal((await post(server.url, "/fork", { episode_id: "ep-nope", n: 1 })).status, 404);
      assert.equal((await post(server.url, "/fork", { episode_id: parent, n: 65 })).status, 422);
      assert.equal((await post(server.url, "/fork", { episode_id: parent, n: 0 })).status, 422);
    } finally {
      await server.close();
    }
  });

  test("groups and forks count against --max-sessions, all or nothing", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSessions: 4 });
    try {
      const tooBig = await post<{ code: string }>(server.url, "/reset", { seed: 1, group: 5 });
      assert.equal(tooBig.status, 503);
      assert.equal(tooBig.body.code, "CAPACITY_REACHED");
      assert.equal(server.sessions.size, 0, "nothing opened");
      const three = await post<{ episodes: Entry[] }>(server.url, "/reset", { seed: 1, group: 3 });
      assert.equal(three.status, 200);
      const fork = await post<{ code: string }>(server.url, "/fork", {
        episode_id: three.body.episodes[0].episode_id,
        n: 2,
      });
      assert.equal(fork.status, 503);
      assert.equal(server.sessions.size, 3);
      assert.equal((await post(server.url, "/reset", { seed: 1, group: 65 })).status, 422);
    } finally {
      await server.close();
    }
  });

  test("WS: group, batch, fork and group results; another connection's sessions are out of reach; close closes all", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    try {
      const one = await WsEpisodeClient.connect(server.url);
      const other = await WsEpisodeClient.connect(server.url);
      const group = await one.sendRaw(
        JSON.stringify({ type: "reset", data: { seed: 11, family: "denied", group: 3 } }),
      );
      assert.equal(group.type, "reset_group");
      const groupData = group.data as unknown as { group_id: string; episodes: Entry[] };
      const members = groupData.episodes;
      assert.equal(members.length, 3);
      assert.equal(server.sessions.size, 5, "2 connections + 3 members");
      const get = { tool: "get_case", args: { case_id: "C-1" } };
      const foreign = await other.sendRaw(
        JSON.stringify({
          type: "step_batch",
          data: { steps: [{ episode_id: members[0].episode_id, action: get }] },
        }),
      );
      assert.equal(foreign.type, "step_batch");
      const entry = (foreign.data as unknown as { results: Entry[] }).results[0];
      assert.equal(entry.error?.code, "SESSION_ERROR", "another connection's session is refused per entry");
      // the connection's own session can be in a batch too
      const own = await one.reset({ seed: 11, family: "denied" });
      const ownId = String(own.metadata.episode_id);
      const batch = async (steps: JsonObject[]) => {
        const reply = await one.sendRaw(JSON.stringify({ type: "step_batch", data: { steps } }));
        assert.equal(reply.type, "step_batch", JSON.stringify(reply));
        return (reply.data as unknown as { results: Entry[] }).results;
      };
      const first = await batch([ownId, ownId].map((id) => ({ episode_id: id, action: get })));
      assert.deepEqual(
        first.map((r) => [r.episode_id, r.metadata.step_count]),
        [
          [ownId, 1],
          [ownId, 2],
        ],
      );
      const forked = await one.sendRaw(JSON.stringify({ type: "fork", data: { episode_id: ownId, n: 2 } }));
      assert.equal(forked.type, "fork", JSON.stringify(forked));
      const forks = (forked.data as unknown as { episodes: Entry[] }).episodes;
      assert.equal(forks.length, 2);
      assert.equal(server.sessions.size, 7);
      const ended = await playBatched(members, ["cautious", "cautious", "cautious"], batch);
      assert.ok(ended.every((e) => e.done));
      const doc = await one.sendRaw(
        JSON.stringify({ type: "group", data: { group_id: groupData.group_id } }),
      );
      assert.equal(doc.type, "group");
      assert.equal((doc.data as unknown as { all_passed: boolean }).all_passed, true);
      await one.close();
      await eventually(() => server.sessions.size === 1, 5000, "the connection's sessions closed with it");
      await other.close();
      await eventually(() => server.sessions.size === 0, 5000, "all closed");
    } finally {
      await server.close();
    }
  });

  test("with a store, a fork is its own trial: forked from (episode, step), parent's steps first, replayable", async () => {
    const db = path.join(dir, "fork.db");
    const store = await openStore(db);
    const server = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      record: { store, experimentId: "serve-fork" },
    });
    let parentId = "";
    try {
      const reset = await post<StepEnvelope>(server.url, "/reset", { family: "needs-approval", seed: 4 });
      parentId = String(reset.body.metadata.episode_id);
      const agent = await agentFor("cautious", reset.body);
      const a = await agent.act(reset.body.observation as Observation);
      await post(server.url, "/step", { episode_id: parentId, action: a });
      const { body } = await post<{ episodes: Entry[] }>(server.url, "/fork", { episode_id: parentId, n: 1 });
      const fork = body.episodes[0];
      // the fork closes the case at once (a failure); the parent plays on to a pass
      await post(server.url, "/step", {
        episode_id: fork.episode_id,
        action: { tool: "close_case", args: { case_id: caseIdOf(reset.body), resolution: "no_action" } },
      });
    } finally {
      await server.close();
    }
    try {
      const manifest = await store.getManifest("serve-fork");
      assert.equal(manifest.length, 2);
      const [parentSpec, forkSpec] = manifest;
      assert.equal(parentSpec.agent.config, undefined);
      assert.deepEqual(forkSpec.agent.config, {
        forked_from: { episode_id: parentId, step_count: 1, trial_id: parentSpec.id },
      });
      assert.deepEqual(
        [forkSpec.family, forkSpec.difficulty, forkSpec.seed, forkSpec.repeat],
        [parentSpec.family, parentSpec.difficulty, parentSpec.seed, 1],
      );
      const record = await store.getTrial(forkSpec.id);
      assert.ok(record, "the fork's trial is recorded");
      assert.equal(record.steps.length, 2, "the parent's step, then the fork's");
      assert.equal(record.steps[1].action.tool, "close_case");
      assert.notEqual(record.outcome, "passed");
      assert.ok(record.verdict, "judged on the fork's world");
      const again = await runTrial(forkSpec, {
        world: deviceSupport,
        agent: replaying(record.steps.map((s) => s.action)),
      });
      assert.equal(again.outcome, record.outcome);
      assert.equal(again.trajectoryHash, record.trajectoryHash, "replays from the task");
      assert.equal(await store.getTrial(parentSpec.id), undefined, "the parent never ended: missing");
    } finally {
      await store.close();
    }
  });
});

test("WS limits: a group past 64 is refused; a connection short of room closes its own ended sessions first", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSessions: 4 });
  try {
    const ws = await WsEpisodeClient.connect(server.url);
    const big = await ws.sendRaw(JSON.stringify({ type: "reset", data: { seed: 1, group: 65 } }));
    assert.equal(big.type, "error");
    assert.equal((big.data as { code: string }).code, "VALIDATION_ERROR");
    const open = async () => {
      const reply = await ws.sendRaw(JSON.stringify({ type: "reset", data: { seed: 1, group: 3 } }));
      assert.equal(reply.type, "reset_group", JSON.stringify(reply));
      return (reply.data as unknown as { episodes: Entry[] }).episodes;
    };
    const members = await open();
    assert.equal(server.sessions.size, 4);
    // still running: no room for another group
    const full = await ws.sendRaw(JSON.stringify({ type: "reset", data: { seed: 1, group: 3 } }));
    assert.equal((full.data as { code: string }).code, "CAPACITY_REACHED");
    // ended: their room is taken back for the next group
    const close = { tool: "close_case", args: { case_id: caseIdOf(members[0]), resolution: "no_action" } };
    const ended = await ws.sendRaw(
      JSON.stringify({
        type: "step_batch",
        data: { steps: members.map((m) => ({ episode_id: m.episode_id, action: close })) },
      }),
    );
    const results = (ended.data as unknown as { results: Entry[] }).results;
    assert.ok(results.every((r) => r.done === true));
    await open();
    assert.equal(server.sessions.size, 4);
    // a released session's id no longer reaches anything (not even the connection's own session)
    const gone = await ws.sendRaw(
      JSON.stringify({ type: "reset", data: { seed: 1, episode_id: members[0].episode_id } }),
    );
    assert.equal(gone.type, "error");
    assert.equal((gone.data as { code: string }).code, "SESSION_ERROR");
    await ws.close();
    await eventually(() => server.sessions.size === 0, 5000, "closed with the connection");
  } finally {
    await server.close();
  }
});

test("the TypeScript clients (HTTP and WS): resetGroup, stepBatch, fork, group", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const get = (e: { observation: unknown }) => ({
      tool: "get_case",
      args: { case_id: caseIdOf(e as StepEnvelope) },
    });
    const http = new ServeClient(server.url);
    const g = await http.resetGroup({ seed: 2, family: "denied" }, 2);
    assert.equal(g.episodes.length, 2);
    const r = await http.stepBatch(g.episodes.map((e) => ({ episode_id: e.episode_id, action: get(e) })));
    assert.deepEqual(
      r.map((x) => [x.episode_id, x.error ?? null]),
      g.episodes.map((e) => [e.episode_id, null]),
    );
    const f = await http.fork(g.episodes[0].episode_id, 1);
    assert.equal(f.episodes[0].metadata.step_count, 1);
    assert.equal((await http.group(String(g.group_id))).members.length, 2);
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const wg = await ws.resetGroup({ seed: 2, family: "denied" }, 2);
      const wr = await ws.stepBatch(wg.episodes.map((e) => ({ episode_id: e.episode_id, action: get(e) })));
      assert.ok(wr.every((x) => x.error === undefined));
      const wf = await ws.fork(wg.episodes[1].episode_id, 2);
      assert.equal(wf.episodes.length, 2);
      assert.equal((await ws.group(String(wg.group_id))).finished, false);
      await assert.rejects(ws.fork("ep-not-mine", 1), /unknown episode_id/);
    } finally {
      await ws.close();
    }
  } finally {
    await server.close();
  }
});

describe("a group from the curriculum", () => {
  test("a bare group reset draws one curriculum task for every member; the group is judged once", async () => {
    const world = "device-support@1";
    const db = path.join(dir, "curriculum.db");
    const store = await openStore(db);
    const history = await openCurriculumStore(db);
    const source = await ServedCurriculum.open({
      gym: defaultGym(),
      history,
      id: "group-cur",
      split: readSplitFile({
        name: "group-cur",
        regression: { version: 1, tasks: [{ world, family: "denied", difficulty: 1, seed: 1 }] },
        dynamic: { worlds: [world], families: ["denied", "approved-replacement"], difficulties: [1] },
      }),
      served: { world },
      strategy: "uniform",
      seed: 5,
    });
    const server = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      families: source.dynamicFamilies,
      record: { store },
      taskSource: source,
    });
    try {
      const { status, body } = await post<{ group_id: string; episodes: Entry[] }>(server.url, "/reset", {
        group: 3,
      });
      assert.equal(status, 200, JSON.stringify(body));
      const tasks = body.episodes.map((e) => e.metadata.task_id);
      assert.equal(new Set(tasks).size, 1, "one task for the group");
      for (const e of body.episodes) assert.ok(e.metadata.curriculum, "drawn from the curriculum");
      await playBatched(
        body.episodes,
        ["cautious", "cautious", "cautious"],
        async (steps) =>
          (await post<{ results: Entry[] }>(server.url, "/step_batch", { steps })).body.results,
      );
      await eventually(
        () => (source.describe().groups as JsonObject).all_passed === 1,
        10_000,
        "the group judged once",
      );
      assert.equal(source.describe().episodes, 1, "an all-passed group counts once");
    } finally {
      await server.close();
      await source.close();
      await history.close();
      await store.close();
    }
  });
});
