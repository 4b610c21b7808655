/**
 * The LLM designer end to end against the fake provider, in both wire formats: a scripted designer
 * model first sends rule code with a compile error, gets the failure record back in a repair round,
 * sends fixed code; the proposal becomes a `rule.generated@1` variant that runs, and the known-good
 * policy passes it. Also: escapes and throws on trajectory samples are repaired the same way, bad
 * layer proposals are refused with the harness's message, a designer that never fixes its code
 * returns nothing after its repair rounds, and the rigger's repair request reaches the model.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type FakeLlmServer,
  type FakeModel,
  type FakeRequest,
  startFakeLlmServer,
} from "../../src/agents/llm/fake/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ruleCodeRealizer } from "../../src/rigger/code/index.ts";
import { llmDesignerFromSpec } from "../../src/rigger/llm-designer.ts";
import type { DesignerInput, Proposal } from "../../src/rigger/types.ts";
import { generatedRule, isolateRuleSandbox, RULE_CODE_API } from "../../src/rules/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { gym, TIMEOUT_ONCE_RULE } from "./support.ts";

const rules = generatedRule(isolateRuleSandbox({ timeoutMs: 1000 }));
const world = gym.world("device-support@1");

const GOOD = TIMEOUT_ONCE_RULE;
const SYNTAX_ERROR = GOOD.replace("refused < 1)", "refused < 1");
const ESCAPES = `export function filterAction(action: Action): Action {
  const env = (globalThis as any).process.env;
  return action;
}`;
const THROWS = `export function filterAction(action: Action, state: RuleState): Action {
  const last = state.history[state.history.length - 1];
  return last.args.case_id ? action : action;
}`;

const section = (title: string, code: string) =>
  `### Proposal: ${title}\n\`\`\`typescript\n${code}\n\`\`\`\n`;

/** What a designer model saw and the text of its last user message. */
interface Seen {
  system: string;
  users: string[];
  format: string;
}

/** A scripted designer: its replies by turn; records what each request held. */
function scripted(replies: string[], seen: Seen[]): FakeModel {
  return (req: FakeRequest) => {
    seen.push({
      system: req.system,
      users: req.turns.filter((t) => t.role === "user").map((t) => t.text),
      format: req.format,
    });
    return { text: replies[Math.min(req.turn, replies.length - 1)] };
  };
}

const input: DesignerInput = {
  world: "device-support@1",
  diagnosis: {
    pattern: "retry-new-key-after-timeout",
    axis: "transition",
    families: ["lost-reply"],
    difficulties: [1, 2],
    violations: ["duplicate_replacement"],
    evidence: [{ trialId: "t-evidence-1", steps: [3, 4] }],
    summary: "after a timeout on create_replacement the agent retried under a new idempotency key",
    facts: { tool: "create_replacement" },
  },
  trajectories: {
    shortestSuccess: {
      trialId: "t-ok-1",
      outcome: "passed",
      family: "approved-replacement",
      difficulty: 1,
      omitted: 0,
      violations: [],
      steps: [
        { index: 0, tool: "get_case", args: { case_id: "c-1" }, result: { ok: true, status: "open" } },
        {
          index: 1,
          tool: "create_replacement",
          args: { case_id: "c-1", idempotency_key: "k1" },
          result: { ok: true, replacement_id: "r-1" },
        },
      ],
    },
    longestFailure: {
      trialId: "t-evidence-1",
      outcome: "violated",
      family: "lost-reply",
      difficulty: 1,
      omitted: 0,
      violations: ["duplicate_replacement"],
      steps: [
        { index: 0, tool: "get_case", args: { case_id: "c-1" }, result: { ok: true } },
        {
          index: 1,
          tool: "create_replacement",
          args: { case_id: "c-1", idempotency_key: "k1" },
          result: { ok: false, error: { code: "timeout", message: "timed out", retryable: true } },
        },
        {
          index: 2,
          tool: "create_replacement",
          args: { case_id: "c-1", idempotency_key: "k2" },
          result: { ok: true, replacement_id: "r-2" },
        },
      ],
    },
  },
  tools: world.create().spec.tools,
  stateSchema: { cases: [{ id: "c-1", status: "open" }] },
  ruleApi: RULE_CODE_API,
  prohibitions: ["Do not make the task unsolvable.", "Do not reach the verifier.", "Do not add a reward."],
  layerCatalogue: gym.harness.layers(),
};

let server: FakeLlmServer;
let model: FakeModel = () => ({ text: "" });
before(async () => {
  server = await startFakeLlmServer({ model: (req) => model(req), apiKey: "test-key" });
});
after(async () => {
  await server.close();
});

const env = () => ({
  OPENAI_BASE_URL: server.baseURL,
  OPENAI_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: server.baseURL,
  ANTHROPIC_API_KEY: "test-key",
});

const designer = (provider: "openai" | "anthropic", maxRepairRounds = 2) =>
  llmDesignerFromSpec(`llm:${provider}:designer-model`, {
    cwd: process.cwd(),
    env: env(),
    prices: gym.prices,
    rules,
    checkLayers: (w, layers) => {
      gym.harness.normalize({ world: w, layers });
    },
    maxRepairRounds,
  });

async function runVariant(proposal: Proposal): Promise<TrialRecord[]> {
  assert.equal(proposal.kind, "code");
  const realized = await ruleCodeRealizer(rules)(proposal as Extract<Proposal, { kind: "code" }>);
  assert.ok(realized.ok, JSON.stringify(realized));
  const variant = { world: "device-support@1", layers: [realized.layer] };
  const records: TrialRecord[] = [];
  const config = parseExperiment({
    id: "llm-designer-variant",
    worlds: ["device-support@1"],
    families: ["approved-replacement"],
    difficulties: [1],
    trials: 2,
    agents: [world.knownGood],
    variants: [variant],
  });
  await runExperiment(config, { ...gym.runOptions(), concurrency: 2, onTrial: (r) => records.push(r) });
  return records;
}

describe("the LLM designer through the fake provider", () => {
  for (const provider of ["openai", "anthropic"] as const) {
    test(`${provider}: a compile error is repaired in a second round; the variant runs and the known-good policy passes`, async () => {
      const seen: Seen[] = [];
      model = scripted(
        [
          section("time out the first create_replacement", SYNTAX_ERROR),
          section("time out the first create_replacement (fixed)", GOOD),
        ],
        seen,
      );
      const d = designer(provider);
      assert.equal(d.id, `llm:${provider}:designer-model`);
      const proposals = await d.propose(input);
      assert.equal(seen.length, 2, "one first round, one repair round");
      assert.ok(seen.every((s) => s.format === provider));
      // the prompt holds the diagnosis, both trajectories, the tools, the state, the API, the prohibitions
      const [first, second] = seen;
      for (const needle of [
        "retry-new-key-after-timeout",
        "t-ok-1",
        "t-evidence-1",
        "idempotency_key",
        "request_approval",
        '"cases"',
        "rule.lose-reply-after-commit@1",
      ])
        assert.ok(first.users[0].includes(needle), `the prompt mentions ${needle}`);
      for (const needle of [
        "export function filterAction",
        "blocked(",
        "Do not reach the verifier.",
        "Do not add a reward.",
      ])
        assert.ok(first.system.includes(needle), `the system prompt has ${needle}`);
      // the repair round carries the failure record: kind, the TypeScript line, the hint
      const repair = second.users[second.users.length - 1];
      assert.match(repair, /\[compile\] compile_error at line 4/);
      assert.match(repair, /valid TypeScript/);
      assert.equal(d.rounds.length, 2);
      assert.equal(d.rounds[0].failures[0].kind, "compile_error");
      assert.equal(d.rounds[1].failures.length, 0);
      assert.equal(proposals.length, 1);
      assert.equal(proposals[0].kind === "code" && proposals[0].source.trim(), GOOD.trim());
      assert.match(proposals[0].rationale, /fixed/);
      const records = await runVariant(proposals[0]);
      assert.equal(records.length, 2);
      for (const r of records) {
        assert.equal(r.outcome, "passed", r.reason);
        assert.ok(r.steps.some((s) => s.observation.kind === "tool_result" && !s.observation.result.ok));
      }
    });
  }

  test("an escape and a throw on the trajectories' steps are sent back too; fixed code is kept", async () => {
    const seen: Seen[] = [];
    model = scripted(
      [
        section("reads the environment", ESCAPES) + section("reads the last call", THROWS),
        section("fixed", GOOD),
      ],
      seen,
    );
    const d = designer("openai");
    const proposals = await d.propose(input);
    const kinds = d.rounds[0].failures.map((f) => f.kind).sort();
    assert.deepEqual(kinds, ["escape", "throw"]);
    const repair = seen[1].users[seen[1].users.length - 1];
    assert.match(repair, /escape/);
    assert.match(repair, /Cannot read properties of undefined/);
    assert.equal(proposals.length, 1);
  });

  test("a layers proposal is checked by the harness: unknown ids go back with its message", async () => {
    const seen: Seen[] = [];
    const bad = '### Proposal: a fault\n```json\n{"layers": [{"id": "rule.nope@1", "params": {}}]}\n```\n';
    const good =
      '### Proposal: lose the reply\n```json\n{"layers": [{"id": "rule.lose-reply-after-commit@1", "params": {"tool": "create_replacement"}}]}\n```\n';
    model = scripted([bad, good], seen);
    const proposals = await designer("anthropic").propose(input);
    assert.match(seen[1].users[1], /unknown layer "rule\.nope@1"/);
    assert.deepEqual(proposals, [
      {
        kind: "layers",
        layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
        rationale: "lose the reply",
      },
    ]);
  });

  test("a designer that never fixes its code stops after its repair rounds with no proposal; unreadable replies are asked again", async () => {
    const seen: Seen[] = [];
    model = scripted(["I think a rule would help.", section("still broken", SYNTAX_ERROR)], seen);
    const d = designer("openai", 2);
    const proposals = await d.propose(input);
    assert.deepEqual(proposals, []);
    assert.equal(seen.length, 3, "the first reply and two repair rounds");
    assert.match(seen[1].users[1], /could not be read/);
    assert.match(seen[2].users[2], /compile_error/);
  });

  test("repair(): the rigger's request (validation, failures) reaches the model", async () => {
    const seen: Seen[] = [];
    model = scripted([section("gentler", GOOD)], seen);
    const d = designer("anthropic");
    const proposals = await d.repair(input, {
      proposal: { kind: "code", source: GOOD, rationale: "too hard" },
      reason: "the target's pass rate is below the band",
      codeFailures: [{ stage: "timeout", hook: "filterAction", message: "ran past the limit" }],
      validation: {
        target: { trials: 20, passed: 1, rate: 0.05, ci: [0.01, 0.24] },
        knownGood: { trials: 5, passed: 5 },
        verifierUnchanged: true,
        changesOutcomes: true,
        stop: "outside",
      },
    });
    const text = seen[0].users[0];
    assert.match(text, /below the band/);
    assert.match(text, /passed 1\/20/);
    assert.match(text, /\[timeout filterAction\] ran past the limit/);
    assert.equal(proposals.length, 1);
    assert.equal(d.rounds[0].conversation, "repair");
  });

  test("llm:SPEC must name a provider", () => {
    assert.throws(
      () => llmDesignerFromSpec("llm:gpt-4o", { cwd: process.cwd(), env: env(), prices: gym.prices, rules }),
      (e: Error & { code?: string }) => e.code === "bad_agent_spec",
    );
  });
});
