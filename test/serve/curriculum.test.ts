/**
 * Issue 26, episodes from the curriculum, over real sockets: a server started with a task source (the
 * curriculum, `ServedCurriculum`) answers a reset without a task with the curriculum's next task (the
 * reply names it and the distribution it came from); each finished episode feeds the curriculum and is
 * stored in its history; an abandoned session does not; the draws follow the strategy (a scripted
 * client weak on one family: that family's share rises under learnability and plr, not under
 * uniform); a server started again on the same store continues the run; held-out tasks are served only
 * to a reset that asks for them; `GET /curriculum` answers the wire contract's shape. The group (DAPO)
 * accounting is checked on the source itself: all passed or all failed counts once, mixed counts each.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TaskObservation, TrialRecord } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import {
  type CurriculumStore,
  MemoryHistory,
  openCurriculumStore,
  readCurriculum,
  readSplitFile,
} from "../../src/curriculum/index.ts";
import { ServedCurriculum } from "../../src/curriculum/serve-task-source.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import {
  type RunningServer,
  ServeClient,
  type StepEnvelope,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

const WORLD = "device-support@1";
const WEAK = "lost-reply";
const HELD_OUT = "unverifiable";

const SPLIT = readSplitFile({
  name: "serve-curriculum-test",
  regression: { version: 1, tasks: [{ world: WORLD, family: "denied", difficulty: 1, seed: 1 }] },
  dynamic: {
    worlds: [WORLD],
    families: ["approved-replacement", "denied", WEAK, "approval-revised"],
    difficulties: [1],
  },
  heldout: { families: [HELD_OUT], difficulties: [1], seeds: [1, 2] },
});

interface Served {
  server: RunningServer;
  source: ServedCurriculum;
  history: CurriculumStore;
  store: Store;
  client: ServeClient;
  close(): Promise<void>;
}

async function serve(
  db: string,
  strategy: string,
  id = `cur-${strategy}`,
  limits: { idleTimeoutMs?: number; reapIntervalMs?: number } = {},
): Promise<Served> {
  const store = await openStore(db);
  const history = await openCurriculumStore(db);
  const source = await ServedCurriculum.open({
    gym: defaultGym(),
    history,
    id,
    split: SPLIT,
    served: { world: WORLD },
    strategy,
    seed: 3,
  });
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    heartbeatMs: 0,
    families: source.dynamicFamilies,
    record: { store },
    taskSource: source,
    ...limits,
  });
  return {
    server,
    source,
    history,
    store,
    client: new ServeClient(server.url),
    async close() {
      await server.close();
      await source.close();
      await history.close();
      await store.close();
    },
  };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: JsonObject }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as JsonObject };
}

async function curriculumDoc(url: string): Promise<JsonObject> {
  const res = await fetch(`${url}/curriculum`);
  assert.equal(res.status, 200);
  return (await res.json()) as JsonObject;
}

/** Plays one episode to its end with a device-support policy (`cautious` passes, `escalate-always` fails). */
async function play(client: ServeClient, first: StepEnvelope, policy: string): Promise<StepEnvelope> {
  const obs0 = first.observation as TaskObservation;
  const id = String(first.metadata.episode_id);
  const agent = deviceSupport.policies[policy];
  const session = await agent.start({
    episodeId: id,
    world: WORLD,
    instruction: obs0.instruction,
    tools: obs0.tools,
    samplingSeed: 0,
  });
  let current = first;
  for (let i = 0; !current.done; i++) {
    assert.ok(i < 200, "the episode ended");
    const action = await session.act(current.observation);
    current = await client.step(id, { tool: action.tool, args: action.args });
  }
  await client.close(id);
  return current;
}

/** A scripted client with a profile: how it plays each family's n-th episode. */
type Profile = (family: string, nth: number) => "cautious" | "escalate-always";
const alwaysFailsWeak: Profile = (family) => (family === WEAK ? "escalate-always" : "cautious");
const halfOnWeak: Profile = (family, nth) =>
  family === WEAK && nth % 2 === 1 ? "escalate-always" : "cautious";

/** Plays `n` curriculum episodes; returns the families drawn, in order. */
async function train(s: Served, n: number, profile: Profile): Promise<string[]> {
  const drawn: string[] = [];
  const seen = new Map<string, number>();
  const start = s.source.describe().episodes as number;
  for (let i = 0; i < n; i++) {
    const first = await s.client.reset();
    const family = String(first.metadata.family);
    drawn.push(family);
    const nth = seen.get(family) ?? 0;
    seen.set(family, nth + 1);
    await play(s.client, first, profile(family, nth));
    // the episode has fed the curriculum (its record settles after the reply) before the next draw:
    // the draws are then a function of the seed and the results alone
    await eventually(
      () => s.source.describe().episodes === start + i + 1,
      20_000,
      "the episode fed to the curriculum",
    );
  }
  return drawn;
}

const shareOf = (families: string[], family: string) =>
  families.filter((f) => f === family).length / families.length;

describe("proving serve with a curriculum (issue 26)", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-curriculum-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("a bare reset is the curriculum's next task; its reply names it and the distribution it came from", async () => {
    const s = await serve(path.join(dir, "meta.db"), "learnability");
    try {
      const doc = await curriculumDoc(s.server.url);
      const first = await s.client.reset();
      const m = first.metadata;
      assert.match(String(m.task_id), /^device-support@1\/[a-z-]+\/d1\/s\d+$/);
      assert.ok(SPLIT.dynamic.families?.includes(String(m.family)));
      assert.equal(m.difficulty, 1);
      assert.equal(typeof m.seed, "number");
      const cur = m.curriculum as JsonObject;
      assert.equal(cur.snapshot_id, doc.snapshot_id);
      assert.equal(cur.key, `${WORLD}/${m.family}/d1`);
      await play(s.client, first, "cautious");
      // a reset that chooses its task plays it as sent, outside the curriculum
      const chosen = await s.client.reset({ family: "denied", seed: 5 });
      assert.equal(chosen.metadata.curriculum, undefined);
      await play(s.client, chosen, "cautious");
      await eventually(() => s.source.describe().episodes === 1, 20_000, "the drawn episode fed");
      assert.equal((await curriculumDoc(s.server.url)).episodes, 1);
    } finally {
      await s.close();
    }
  });

  test("GET /curriculum answers the contract's shape", async () => {
    const s = await serve(path.join(dir, "shape.db"), "learnability");
    try {
      await train(s, 3, alwaysFailsWeak);
      const doc = await curriculumDoc(s.server.url);
      assert.equal(doc.strategy, "learnability");
      assert.equal(typeof doc.snapshot_id, "string");
      assert.equal(doc.episodes, 3);
      const dist = doc.distribution as JsonObject[];
      assert.equal(dist.length, 4);
      for (const d of dist) {
        assert.deepEqual(Object.keys(d).sort(), [
          "difficulty",
          "episodes",
          "family",
          "key",
          "passes",
          "probability",
        ]);
        assert.equal(d.key, `${WORLD}/${d.family}/d${d.difficulty}`);
      }
      const total = dist.reduce((sum, d) => sum + (d.probability as number), 0);
      assert.ok(Math.abs(total - 1) < 1e-9, `probabilities sum to ${total}`);
      assert.equal(
        dist.reduce((sum, d) => sum + (d.episodes as number), 0),
        3,
      );
      assert.deepEqual(doc.groups, { all_passed: 0, all_failed: 0, mixed: 0 });
      // the held-out family is not in the distribution
      assert.ok(dist.every((d) => d.family !== HELD_OUT));
    } finally {
      await s.close();
    }
  });

  test("the draws follow the strategy: the weak family's share rises under learnability and plr, not under uniform", async (t) => {
    const n = 40;
    const late = (drawn: string[]) => drawn.slice(n / 2);
    const uniform = await serve(path.join(dir, "uniform.db"), "uniform");
    const byUniform = await train(uniform, n, alwaysFailsWeak).finally(() => uniform.close());
    const learn = await serve(path.join(dir, "learnability.db"), "learnability");
    const byLearnability = await train(learn, n, halfOnWeak).finally(() => learn.close());
    const plr = await serve(path.join(dir, "plr.db"), "plr");
    const byPlr = await train(plr, n, alwaysFailsWeak).finally(() => plr.close());
    const u = shareOf(late(byUniform), WEAK);
    const l = shareOf(late(byLearnability), WEAK);
    const p = shareOf(late(byPlr), WEAK);
    t.diagnostic(`weak family share, episodes 21-40: uniform ${u}, learnability ${l}, plr ${p}`);
    // uniform over 4 families: about 1/4; learnability puts ~90% on the one learnable key, plr on the failed one
    assert.ok(u <= 0.45, `uniform ${u}`);
    assert.ok(l >= 0.6, `learnability ${l}`);
    assert.ok(p >= 0.6, `plr ${p}`);
    assert.ok(l >= u + 0.25 && p >= u + 0.25);
  });

  test("an abandoned session does not change the distribution (HTTP closed early, WS dropped, idle reclaimed)", async () => {
    const s = await serve(path.join(dir, "abandon.db"), "learnability");
    try {
      await train(s, 4, halfOnWeak);
      const before = await curriculumDoc(s.server.url);
      // HTTP: reset, one step, closed before the end
      const first = await s.client.reset();
      const id = String(first.metadata.episode_id);
      await s.client.step(id, { tool: "get_case", args: {} }).catch(() => undefined);
      await s.client.close(id);
      // HTTP: reset, then replaced by another reset of the same episode id, itself closed
      const again = await s.client.reset({ episode_id: "ep-replaced" });
      assert.ok(again.metadata.curriculum);
      await s.client.close(String((await s.client.reset({ episode_id: "ep-replaced" })).metadata.episode_id));
      // WS: reset and drop the connection
      const ws = await WsEpisodeClient.connect(s.server.url);
      await ws.reset();
      await ws.close();
      await eventually(() => s.source.describe().abandoned === 4, 10_000, "four abandoned draws");
      const after = await curriculumDoc(s.server.url);
      assert.equal(after.snapshot_id, before.snapshot_id);
      assert.equal(after.episodes, before.episodes);
      assert.deepEqual(after.distribution, before.distribution);
      assert.equal(after.abandoned, 4);
      assert.equal((await readCurriculum(s.history, "cur-learnability")).episodes.length, 4);
    } finally {
      await s.close();
    }
  });

  test("a session reclaimed when idle is abandoned: the distribution stays", async () => {
    const s = await serve(path.join(dir, "idle.db"), "learnability", "idle", {
      idleTimeoutMs: 300,
      reapIntervalMs: 20,
    });
    try {
      const before = await curriculumDoc(s.server.url);
      const first = await s.client.reset();
      assert.ok(first.metadata.curriculum);
      await eventually(() => s.source.describe().abandoned === 1, 10_000, "the idle session reclaimed");
      const after = await curriculumDoc(s.server.url);
      assert.equal(after.snapshot_id, before.snapshot_id);
      assert.equal(after.episodes, 0);
      assert.deepEqual(after.distribution, before.distribution);
    } finally {
      await s.close();
    }
  });

  test("a group reset draws one task for its members; all passed or all failed feeds the curriculum once, mixed feeds each (DAPO)", async () => {
    const s = await serve(path.join(dir, "groups.db"), "learnability", "groups-served");
    try {
      const group = async (size: number, policies: (string | "close")[]) => {
        const r = await post(`${s.server.url}/reset`, { group: size });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const members = r.body.episodes as unknown as StepEnvelope[];
        assert.equal(members.length, size);
        const metas = members.map((m) => m.metadata);
        assert.equal(new Set(metas.map((m) => m.task_id)).size, 1, "one task for the group");
        for (const m of metas) {
          assert.equal((m.curriculum as JsonObject).group_id, r.body.group_id);
          assert.equal((m.curriculum as JsonObject).key, `${WORLD}/${m.family}/d1`);
        }
        await Promise.all(
          members.map((m, i) =>
            policies[i] === "close"
              ? s.client.close(String(m.metadata.episode_id))
              : play(s.client, m, policies[i]),
          ),
        );
        return String(r.body.group_id);
      };
      const fed = (n: number) =>
        eventually(() => s.source.describe().episodes === n, 20_000, `${n} episodes fed`);
      const passing = await group(4, ["cautious", "cautious", "cautious", "cautious"]);
      await fed(1);
      const result = (await (await fetch(`${s.server.url}/group?group_id=${passing}`)).json()) as JsonObject;
      assert.equal(result.all_passed, true);
      await group(3, ["cautious", "escalate-always", "cautious"]);
      await fed(4);
      await group(2, ["escalate-always", "escalate-always"]);
      await fed(5);
      // a member closed before its end is abandoned; the others all passed: fed once
      await group(3, ["cautious", "close", "cautious"]);
      await fed(6);
      const doc = await curriculumDoc(s.server.url);
      assert.deepEqual(doc.groups, { all_passed: 2, all_failed: 1, mixed: 1 });
      assert.equal(doc.abandoned, 1);
      const stored = await readCurriculum(s.history, "groups-served");
      assert.equal(stored.episodes.length, 6);
    } finally {
      await s.close();
    }
  });

  test("a server started again on the same store continues the run: same snapshot id, the episodes count on", async () => {
    const db = path.join(dir, "resume.db");
    const first = await serve(db, "learnability", "resumed");
    let snapshotId: unknown;
    let distribution: unknown;
    try {
      await train(first, 5, halfOnWeak);
      const doc = await curriculumDoc(first.server.url);
      assert.equal(doc.episodes, 5);
      snapshotId = doc.snapshot_id;
      distribution = doc.distribution;
    } finally {
      await first.close();
    }
    const second = await serve(db, "learnability", "resumed");
    try {
      const doc = await curriculumDoc(second.server.url);
      assert.equal(doc.snapshot_id, snapshotId);
      assert.equal(doc.episodes, 5);
      assert.deepEqual(doc.distribution, distribution);
      await train(second, 2, halfOnWeak);
      assert.equal((await curriculumDoc(second.server.url)).episodes, 7);
      // the history is the curriculum's: `proving curriculum show` reads it, each episode a stored trial
      const stored = await readCurriculum(second.history, "resumed");
      assert.equal(stored.episodes.length, 7);
      assert.deepEqual(
        stored.episodes.map((e) => e.index),
        [1, 2, 3, 4, 5, 6, 7],
      );
      for (const e of stored.episodes) {
        const trial = await second.store.getTrial(e.trial);
        assert.ok(trial, `trial ${e.trial} (episode ${e.index}) is stored`);
        assert.equal(trial?.outcome, e.outcome);
        assert.equal(trial?.spec.family, e.family);
        assert.equal(trial?.spec.seed, e.seed);
      }
    } finally {
      await second.close();
    }
    // other settings under the same id are refused
    const history = await openCurriculumStore(db);
    try {
      await assert.rejects(
        ServedCurriculum.open({
          gym: defaultGym(),
          history,
          id: "resumed",
          split: SPLIT,
          served: { world: WORLD },
          strategy: "uniform",
        }),
        /curriculum run resumed is stored with other settings/,
      );
    } finally {
      await history.close();
    }
  });

  test("held-out tasks are served only to a reset that asks for them, and never train the curriculum", async () => {
    const s = await serve(path.join(dir, "heldout.db"), "learnability");
    try {
      const drawn = await train(s, 12, alwaysFailsWeak);
      assert.ok(drawn.every((f) => f !== HELD_OUT));
      // seeded resets derive their family among the dynamic ones
      for (let seed = 0; seed < 20; seed++) {
        const r = await s.client.reset({ seed });
        assert.notEqual(r.metadata.family, HELD_OUT);
        await s.client.close(String(r.metadata.episode_id));
      }
      const named = await post(`${s.server.url}/reset`, { family: HELD_OUT, seed: 1 });
      assert.equal(named.status, 422);
      assert.match(String(named.body.message), /held out/);
      const before = await curriculumDoc(s.server.url);
      const asked = await post(`${s.server.url}/reset`, { split: "heldout" });
      assert.equal(asked.status, 200);
      const m = asked.body.metadata as JsonObject;
      assert.equal(m.family, HELD_OUT);
      assert.equal((m.curriculum as JsonObject).split, "heldout");
      await play(s.client, asked.body as unknown as StepEnvelope, "cautious");
      await eventually(
        () => (s.source.describe().heldout as JsonObject).episodes === 1,
        10_000,
        "the held-out episode counted",
      );
      const after = await curriculumDoc(s.server.url);
      assert.equal(after.episodes, before.episodes);
      assert.equal(after.snapshot_id, before.snapshot_id);
      assert.deepEqual(after.heldout, { tasks: 2, episodes: 1, passes: 1 });
      const bad = await post(`${s.server.url}/reset`, { split: "heldout", family: "denied" });
      assert.equal(bad.status, 422);
    } finally {
      await s.close();
    }
  });
});

/** A trial record as the source reads it (outcome, the trial's id, its steps). */
function record(id: string, outcome: string): TrialRecord {
  return { spec: { id, seed: 0 }, outcome, steps: [] } as unknown as TrialRecord;
}

describe("the served curriculum's group accounting (DAPO)", () => {
  test("a group that all passed or all failed counts once; a mixed one counts each member; abandoned and infrastructure members never", async () => {
    const history = new MemoryHistory();
    const source = await ServedCurriculum.open({
      gym: defaultGym(),
      history,
      id: "groups",
      split: SPLIT,
      served: { world: WORLD },
    });
    const settle = (members: ReturnType<ServedCurriculum["drawGroup"]>, outcomes: string[]) =>
      outcomes.forEach((o, i) => {
        const m = members?.[i];
        if (o === "abandoned") m?.abandoned("closed");
        else m?.finished(record(`t-${Math.random()}`, o));
      });
    const passing = source.drawGroup({}, "g1", 4);
    assert.equal(passing?.length, 4);
    const [a, b] = passing ?? [];
    assert.equal(a.seed, b.seed);
    assert.equal(a.family, b.family);
    assert.equal(a.metadata.group_id, "g1");
    settle(passing, ["passed", "passed", "passed"]);
    assert.equal(source.describe().episodes, 0, "a group is judged once every member settled");
    settle([passing?.[3]] as never, ["passed"]);
    assert.equal(source.describe().episodes, 1);
    settle(source.drawGroup({}, "g2", 3), ["failed", "failed", "abandoned"]);
    settle(source.drawGroup({}, "g3", 3), ["passed", "failed", "infra_error"]);
    const doc = source.describe();
    assert.deepEqual(doc.groups, { all_passed: 1, all_failed: 1, mixed: 1 });
    assert.equal(doc.episodes, 1 + 1 + 2);
    assert.equal(doc.abandoned, 1);
    assert.equal(doc.infra, 1);
    // a group that chose its task is not the curriculum's
    assert.equal(source.drawGroup({ seed: 4 }, "g4", 2), undefined);
    await source.close();
    const rows = await history.episodes("groups");
    // four episodes and one infrastructure attempt, in the order they settled
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ["passed", "failed", "infra_error", "passed", "failed"],
    );
    const stored = await readCurriculum(history, "groups");
    assert.equal(stored.episodes.length, 4);
    assert.equal(stored.infra.length, 1);
  });
});
