/**
 * The scripted learner: a device-support agent whose behaviour depends on the skills it retrieves for
 * its task (BM25 over the bank, query = the instruction and the tools it is offered), so the learning
 * loop runs offline. Without skills it has four habits: it writes before asking for approval, ignores
 * the approval's conditions, retries a timed-out write under a new key, and claims a write it could
 * not confirm. A retrieved skill's directive replaces one habit (`approval_first`,
 * `follow_conditions`, `reconcile_after_timeout`, `confirm_before_claim`). The ids of the skills it
 * retrieved go into its first action's `meta.skills`, so the trial records what it knew.
 */

import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Agent, AgentAction, Observation, ToolResult } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { approvalFlow, caseOf } from "../worlds/device-support/policies.ts";
import {
  callWithRetry as call,
  isOk as ok,
  reconcileWrite,
  type Script,
  ScriptSession,
} from "../worlds/shared/index.ts";
import { bm25Retrieve, type RetrievedSkill } from "./retrieval.ts";
import type { DirectiveKind, SkillDirective } from "./skill.ts";
import type { SkillBank } from "./skill-bank.ts";

export const LEARNER_WORLD = "device-support@1";

export interface LearnerOptions {
  /** Display id (default `learner`). */
  id?: string;
  /** No bank: the learner with no skills. */
  bank?: SkillBank;
  /** Skills retrieved per task (default 3). */
  k?: number;
}

type Known = Partial<Record<DirectiveKind, SkillDirective>>;

function* learnerScript(caseId: string, known: Known, skills: string[]): Script {
  let first = true;
  const tag = (a: AgentAction): AgentAction => {
    if (!first) return a;
    first = false;
    return { ...a, meta: { skills } };
  };
  const got: ToolResult = yield tag({ tool: "get_case", args: { case_id: caseId } });
  if (!ok(got)) {
    yield { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } };
    return;
  }
  const device = got.device as JsonObject;
  const customer = got.customer as JsonObject;
  let model = String(device.model);
  let address = String(((customer.addresses as JsonObject[])[0] as JsonObject).address_id);
  const key = `${caseId}-replacement`;
  const create = (k: string) =>
    call("create_replacement", { case_id: caseId, model, address_id: address, idempotency_key: k }, 1);
  const escalate = function* (reason: string, ids: string[]): Script {
    yield { tool: "escalate", args: { case_id: caseId, reason, operation_ids: ids } };
    yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
  };

  let result: ToolResult | undefined;
  if (!known.approval_first) result = yield* create(key); // habit: write first
  const retryable = result !== undefined && !result.ok && result.error.retryable;
  if (!result?.ok && !retryable) {
    const { status, approval } = yield* approvalFlow(caseId, "device replacement");
    if (status === "denied") {
      yield { tool: "close_case", args: { case_id: caseId, resolution: "denied" } };
      return;
    }
    if (status !== "approved") {
      yield* escalate(`approval is ${status}`, []);
      return;
    }
    const conditions = approval?.conditions as JsonObject | undefined;
    if (known.follow_conditions) {
      if (conditions?.model !== undefined) model = String(conditions.model);
      if (conditions?.address_id !== undefined) address = String(conditions.address_id);
    }
    result = yield* create(key);
  }
  if (result === undefined) return; // unreachable: either branch sent the write
  if (ok(result)) {
    yield closeCreated(caseId, String(result.request_id));
    return;
  }
  if (!result.error.retryable) {
    yield* escalate(`create failed: ${result.error.code}`, [key]);
    return;
  }
  const done = yield* reconcileWrite({
    key,
    write: create,
    find: { tool: known.reconcile_after_timeout?.find ?? "find_replacements", list: "replacements" },
    id: "request_id",
    newKeys: !known.reconcile_after_timeout, // habit: a fresh key per retry
  });
  if (done.id !== undefined) {
    yield closeCreated(caseId, done.id);
    return;
  }
  if (!known.confirm_before_claim) {
    // habit: claim what it could not confirm
    yield {
      tool: "close_case",
      args: { case_id: caseId, resolution: "replacement_created", reference: key },
    };
    return;
  }
  yield* escalate("could not confirm the replacement request", done.keys);
}

function closeCreated(caseId: string, reference: string): AgentAction {
  return { tool: "close_case", args: { case_id: caseId, resolution: "replacement_created", reference } };
}

/** The skills the learner retrieves for a task (what its first observation shows). */
export function learnerRetrieval(bank: SkillBank | undefined, first: Observation, k = 3): RetrievedSkill[] {
  if (!bank || bank.skills.length === 0 || first.kind !== "task") return [];
  const query = `${first.instruction} ${first.tools.map((t) => t.name).join(" ")}`;
  return bm25Retrieve(bank, query, k);
}

export function learnerAgent(options: LearnerOptions = {}): Agent {
  const k = options.k ?? 3;
  return {
    id: options.id ?? "learner",
    start: () =>
      new ScriptSession((first) => {
        const retrieved = learnerRetrieval(options.bank, first, k);
        const known: Known = {};
        for (const r of retrieved) {
          const d = r.skill.directive;
          if (d && !known[d.kind]) known[d.kind] = d;
        }
        return learnerScript(
          caseOf(first),
          known,
          retrieved.map((r) => r.skill.id),
        );
      }),
  };
}

/** The learner as the runner takes agents (`RunOptions.agents`); the ref records the bank and k. */
export function resolvedLearner(options: LearnerOptions = {}): ResolvedAgent {
  const agent = learnerAgent(options);
  const bank = options.bank;
  return {
    ref: {
      id: agent.id,
      kind: "learner",
      spec: "learner",
      config: {
        k: options.k ?? 3,
        bank: bank ? bank.name : null,
        skills: bank ? bank.skills.map((s) => s.id) : [],
        index: bank ? bank.index.model : null,
      },
    },
    forWorld: () => agent,
  };
}
