import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultGym } from "../../src/gym/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { connectRemote, RemoteEnvironment, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

test("the runner drives a remote server as if it were a local world: same outcomes, verdicts and trajectories", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const remote = await connectRemote(server.url);
    assert.equal(remote.world, "device-support@1");
    assert.deepEqual(remote.spec.terminalTools, ["close_case"]);
    const registry = defaultGym().registry;
    const config = parseExperiment({
      id: "remote-parity",
      worlds: ["device-support@1"],
      families: ["lost-reply", "needs-approval", "denied"],
      difficulties: [1, 3],
      agents: ["cautious", "claims-success", "new-key-retry"],
      trials: 1,
      concurrency: 3,
    });
    const local = await runExperiment(config, { registry });
    const viaServer = await runExperiment(config, { registry, environment: remote.environment });
    assert.equal(viaServer.trials.length, local.trials.length);
    for (let i = 0; i < local.trials.length; i++) {
      const a = local.trials[i];
      const b = viaServer.trials[i];
      assert.equal(b.outcome, a.outcome, `${a.family}/d${a.difficulty}/${a.agent}`);
      assert.equal(b.score, a.score);
      assert.deepEqual(b.violations, a.violations);
      assert.equal(b.trajectoryHash, a.trajectoryHash, `${a.family}/d${a.difficulty}/${a.agent} trajectory`);
    }
    assert.ok(local.trials.some((t) => t.outcome === "passed"));
    assert.ok(local.trials.some((t) => t.outcome !== "passed"));
    await remote.close();
    // every remote session (trials and the runner's clean-start references) is given back
    await eventually(() => server.sessions.size === 0, 10_000, "remote sessions closed");
    assert.equal(server.sessions.counts().reaped, 0);
  } finally {
    await server.close();
  }
});

test("a remote trial stopped by its budget is recorded without a verdict, and its session is closed", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const remote = await connectRemote(server.url);
    const record = await runTrial(
      {
        schemaVersion: 1,
        id: "t-budget",
        experimentId: "e",
        index: 0,
        world: deviceSupport.id,
        family: "needs-approval",
        difficulty: 2,
        seed: 1,
        repeat: 0,
        agent: { id: "cautious", kind: "scripted", spec: "cautious" },
        budget: { maxSteps: 2 },
      },
      { world: deviceSupport, agent: deviceSupport.policies.cautious, environment: remote.environment },
    );
    assert.equal(record.outcome, "budget_exhausted");
    assert.equal(record.steps.length, 2);
    assert.equal(record.verdict, undefined);
    // closed when its trial ended (Environment.close), not only when the run closes the target
    await eventually(() => server.sessions.size === 0, 10_000, "sessions closed");
    await remote.close();
  } finally {
    await server.close();
  }
});

test("a server that takes one session at a time: a run's trials wait their turn, none is an infra error", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSessions: 1 });
  try {
    const config = parseExperiment({
      id: "remote-capacity",
      worlds: ["device-support@1"],
      families: ["needs-approval", "denied"],
      difficulties: [1],
      agents: ["cautious", "claims-success"],
      trials: 2,
      concurrency: 4,
    });
    const registry = defaultGym().registry;
    const local = await runExperiment(config, { registry });
    const remote = await connectRemote(server.url, { capacityWaitMs: 60_000 });
    const viaServer = await runExperiment(config, {
      registry,
      environment: remote.environment,
      admission: remote.admission,
    });
    assert.equal(remote.admission.limit, 1, "learned from the server's refusal");
    assert.deepEqual(
      viaServer.trials.map((t) => t.outcome),
      local.trials.map((t) => t.outcome),
    );
    assert.ok(!viaServer.trials.some((t) => t.outcome === "infra_error"));
    await remote.close();
    // without a wait the same run loses trials to the server's refusals
    const refused = await connectRemote(server.url);
    const lost = await runExperiment(
      { ...config, id: "remote-capacity-refused" },
      {
        registry,
        environment: refused.environment,
      },
    );
    assert.ok(
      lost.trials.some((t) => t.outcome === "infra_error"),
      "refused at once",
    );
    await refused.close();
  } finally {
    await server.close();
  }
});

test("a remote server that builds a different task is refused at reset", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const remote = await connectRemote(server.url);
    const env = remote.environment(
      {
        schemaVersion: 1,
        id: "t-x",
        experimentId: "e",
        index: 0,
        world: deviceSupport.id,
        family: "denied",
        difficulty: 1,
        seed: 1,
        repeat: 0,
        agent: { id: "a", kind: "scripted", spec: "a" },
        budget: { maxSteps: 5 },
      },
      deviceSupport,
    );
    assert.ok(env instanceof RemoteEnvironment);
    const task = deviceSupport.generateTask({ family: "denied", difficulty: 1, seed: 1 });
    await assert.rejects(
      env.reset({ task: { ...task, id: "other-task" }, seed: 1 }),
      /remote server built task/,
    );
    await eventually(() => server.sessions.size === 0, 10_000, "session closed");
  } finally {
    await server.close();
  }
});
