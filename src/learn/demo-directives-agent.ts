/**
 * `demo-directives`: a PLUMBING DEMO, not a learner. A hand-written device-support@1 script with four
 * habits — it writes before asking for approval, ignores the approval's conditions, retries a
 * timed-out write under a new key, and claims a write it could not confirm — each switched off when
 * a skill TEXT in its task's `context.skills` matches a fixed phrase (`directivesOfText`). It shows
 * that induction, retrieval and skill injection reach an agent offline; it proves nothing about
 * whether skills help an agent that learns: its gain is whatever its author wired to the phrases the
 * rule inducer writes. Nonsense text switches nothing; correct advice in other words may not either.
 */

import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Agent, AgentAction, ToolResult } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { approvalFlow, caseOf } from "../worlds/device-support/policies.ts";
import {
  callWithRetry as call,
  isOk as ok,
  reconcileWrite,
  type Script,
  ScriptSession,
} from "../worlds/shared/index.ts";

export const DEMO_AGENT = "demo-directives";
/** The one world the demo's script plays. */
export const DEMO_WORLD = "device-support@1";

/** The habits the demo's skill texts switch off. */
export interface DemoDirectives {
  approvalFirst: boolean;
  followConditions: boolean;
  /** The lookup tool a reconcile text names (`call find_x with the same key`). */
  reconcileWith?: string;
  confirmBeforeClaim: boolean;
}

/**
 * What the demo takes from skill texts: fixed phrases, one per habit. Only the text is read (a skill
 * file's other fields never reach the demo).
 */
export function directivesOfText(texts: readonly string[]): DemoDirectives {
  const out: DemoDirectives = { approvalFirst: false, followConditions: false, confirmBeforeClaim: false };
  for (const t of texts) {
    if (/\b(never|do not|don't)\b[^.]*\bbefore\b[^.]*\bapprov/i.test(t)) out.approvalFirst = true;
    if (/\bconditions?\b/i.test(t) && /\b(instead|follow|apply)\b/i.test(t)) out.followConditions = true;
    const find = /\b(?:call|use)\s+((?:find|list|search)_\w+)\b[^.]*\bsame\b/i.exec(t);
    if (find && !out.reconcileWith) out.reconcileWith = find[1];
    if (/\bescalate\b/i.test(t) && /\b(never|do not|don't)\s+claim\b/i.test(t)) out.confirmBeforeClaim = true;
  }
  return out;
}

/** The texts of the skills in a task observation's `context.skills`. */
function skillTexts(context: JsonObject): string[] {
  const skills = context.skills;
  if (!Array.isArray(skills)) return [];
  return skills
    .map((s) => (s && typeof s === "object" && !Array.isArray(s) ? (s as JsonObject).text : undefined))
    .filter((t): t is string => typeof t === "string");
}

function* demoScript(caseId: string, known: DemoDirectives): Script {
  const got: ToolResult = yield { tool: "get_case", args: { case_id: caseId } };
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
  if (!known.approvalFirst) result = yield* create(key); // habit: write first
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
    if (known.followConditions) {
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
    find: { tool: known.reconcileWith ?? "find_replacements", list: "replacements" },
    id: "request_id",
    newKeys: known.reconcileWith === undefined, // habit: a fresh key per retry
  });
  if (done.id !== undefined) {
    yield closeCreated(caseId, done.id);
    return;
  }
  if (!known.confirmBeforeClaim) {
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

/** The demo agent: its skills come in its task's `context.skills` (`contextSkillsAgent`). */
export function demoDirectivesAgent(id = DEMO_AGENT): Agent {
  return {
    id,
    start: () =>
      new ScriptSession((first) =>
        demoScript(caseOf(first), directivesOfText(first.kind === "task" ? skillTexts(first.context) : [])),
      ),
  };
}

/** The demo as the runner takes agents; it refuses any world but `device-support@1`. */
export function resolvedDemoAgent(): ResolvedAgent {
  const agent = demoDirectivesAgent();
  return {
    ref: { id: DEMO_AGENT, kind: "demo", spec: DEMO_AGENT, config: { plumbingDemoOnly: true } },
    forWorld: (world) => {
      if (world.id !== DEMO_WORLD)
        throw configError("bad_flag", `--agent ${DEMO_AGENT} plays ${DEMO_WORLD} only, not ${world.id}`);
      return agent;
    },
  };
}
