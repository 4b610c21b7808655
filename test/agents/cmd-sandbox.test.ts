/**
 * `cmd-jsonl:` (and `cmd:`, which starts programs the same way) agents are isolated (issue 17): the
 * program sees an allowlisted environment (no API keys or tokens unless passed by name), starts in
 * an empty private directory, cannot read the store, the checkout or other files of the host under
 * bubblewrap, and nothing it starts outlives its trial, `setsid` included. Under CI=true bubblewrap
 * must be there (`.ci/run` installs it); elsewhere the sandboxed cases skip without it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { findBwrap } from "../../src/agents/cmd/sandbox.ts";
import type { TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { unsandboxedBanner } from "../../src/report/html/sections.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { REPO_ROOT } from "../support/cli.ts";
import { sleepers } from "./processes.ts";

const SNOOP = path.join(import.meta.dirname, "fixtures", "snoop.mjs");
const bwrap = findBwrap(process.env.PATH);
const inCi = process.env.CI === "true";

interface Found {
  env: string[];
  cwd: string;
  entries: string[];
  readable: Record<string, boolean>;
  ancestors: string[];
}

async function snoop(env: Record<string, string>, sleepFor: string, targets: string[]): Promise<Found> {
  // the targets travel in the environment: a file the command line names is made readable to it
  const gym = defaultGym({
    env: {
      PATH: process.env.PATH,
      ...env,
      SNOOP_TARGETS: targets.join(":"),
      PROVING_AGENT_ENV: [env.PROVING_AGENT_ENV, "SNOOP_TARGETS"].filter(Boolean).join(","),
    },
  });
  const records: TrialRecord[] = [];
  const config = parseExperiment({
    worlds: ["device-support@1"],
    families: ["approved-replacement"],
    difficulties: [1],
    trials: 1,
    agents: [`cmd-jsonl:node ${SNOOP} ${sleepFor}`],
    budget: { maxSteps: 1, wallTimeoutMs: 20_000 },
  });
  await runExperiment(config, { ...gym.runOptions(), cwd: REPO_ROOT, onTrial: (r) => records.push(r) });
  assert.equal(records.length, 1);
  const reason = records[0]?.steps[0]?.action.args.reason;
  assert.equal(typeof reason, "string", `${records[0]?.outcome}: ${records[0]?.reason}`);
  return JSON.parse(String(reason)) as Found;
}

/** What this test process's command line holds (as the CLI's holds `--store PATH`). */
const RUNNER_MARK = fs.readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean).at(-1) ?? "\0";

const SECRETS = { OPENAI_API_KEY: "sk-secret", ANTHROPIC_API_KEY: "ant-secret", PROVING_REMOTE_TOKEN: "tok" };

describe("cmd-jsonl: agents are isolated", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-sandbox-test-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = path.join(dir, "proving.db");
  fs.writeFileSync(store, "other trials' records");
  const checkout = path.join(REPO_ROOT, "package.json");

  for (const mode of ["off", "require"] as const) {
    const skip = mode === "require" && !bwrap && !inCi ? "bubblewrap (bwrap) is not installed" : false;
    test(`sandbox ${mode}: only allowlisted variables, an empty private working dir, no process left behind`, {
      skip,
    }, async () => {
      const seconds = mode === "off" ? "3171" : "3172";
      const found = await snoop({ ...SECRETS, PROVING_AGENT_SANDBOX: mode }, seconds, [store, checkout]);
      for (const name of Object.keys(SECRETS)) assert.ok(!found.env.includes(name), `${name} is not passed`);
      assert.ok(found.env.includes("PROVING_EPISODE_ID"));
      for (const hidden of ["PROVING_TASK_ID", "PROVING_SEED", "PROVING_TRIAL_ID"])
        assert.ok(!found.env.includes(hidden));
      assert.deepEqual(found.entries, [], "the working directory starts empty");
      assert.notEqual(path.resolve(found.cwd), path.resolve(REPO_ROOT), "not the run's directory");
      assert.ok(!fs.existsSync(found.cwd), "the private directory is removed with the trial");
      assert.deepEqual(sleepers(seconds), [], "the setsid child ended with the trial");
      // the replay cheat found the store in the runner's command line (/proc/<ppid>/cmdline)
      const runner = found.ancestors.some((cmd) => cmd.includes(RUNNER_MARK));
      if (mode === "require") {
        assert.equal(found.readable[store], false, "the store is out of reach");
        assert.equal(found.readable[checkout], false, "the checkout is out of reach");
        assert.equal(
          runner,
          false,
          `the runner's command line is out of sight: ${found.ancestors.join(" | ")}`,
        );
      } else {
        assert.equal(
          runner,
          true,
          "unsandboxed, the runner's command line is visible (the threat model says so)",
        );
      }
    });
  }

  test("--agent-env NAME (PROVING_AGENT_ENV) passes a variable explicitly", async () => {
    const found = await snoop(
      { ...SECRETS, PROVING_AGENT_ENV: "OPENAI_API_KEY", PROVING_AGENT_SANDBOX: "off" },
      "3173",
      [],
    );
    assert.ok(found.env.includes("OPENAI_API_KEY"));
    assert.ok(!found.env.includes("ANTHROPIC_API_KEY"));
  });

  test("no silent fallback: without a working bwrap, auto warns (terminal and report), CI=true refuses (issue 27)", async () => {
    // a PATH with node but no bwrap: the sandbox is missing
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "pg-nobwrap-"));
    fs.symlinkSync(process.execPath, path.join(bin, "node"));
    const noBwrap = bin;
    const spec = `cmd-jsonl:node ${SNOOP} 1`;
    const resolve = (env: Record<string, string>) => {
      const warned: string[] = [];
      const gym = defaultGym({ env: { PATH: noBwrap, ...env }, warn: (m) => warned.push(m) });
      return gym
        .resolveAgent(spec, { cwd: REPO_ROOT, worlds: [gym.world("device-support@1")] })
        .then((r) => ({ r, warned }));
    };
    try {
      const auto = await resolve({});
      assert.equal(auto.r.ref.config?.sandbox, "none");
      assert.equal(auto.warned.length, 1);
      assert.match(auto.warned[0], /UNSANDBOXED/);
      await assert.rejects(resolve({ CI: "true" }), /sandbox is required/, "under CI the default is require");
      await assert.rejects(resolve({ PROVING_AGENT_SANDBOX: "require" }), /sandbox is required/);
      const off = await resolve({ PROVING_AGENT_SANDBOX: "off" });
      assert.equal(off.warned.length, 0, "off is the user's explicit choice");
      const manifest = [
        { agent: auto.r.ref },
        { agent: { id: "cautious", kind: "scripted", spec: "cautious" } },
      ];
      const banner = unsandboxedBanner(manifest as unknown as TrialSpec[]);
      assert.match(banner, /UNSANDBOXED/);
      assert.match(banner, /cmd-jsonl:node/);
      assert.equal(unsandboxedBanner(manifest.slice(1) as unknown as TrialSpec[]), "");
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test("under CI=true bubblewrap is there (the sandbox is tested, not skipped)", {
    skip: !inCi && "not CI",
  }, () => {
    assert.ok(bwrap, "bubblewrap must be installed in CI (.ci/run installs it)");
  });
});
