import type { Agent, AgentAction, Observation, ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import {
  callWithRetry as call,
  isOk as ok,
  reconcileWrite,
  type Script,
  scriptPolicy,
} from "../shared/index.ts";

/** The flaw a scripted policy is built to have (none for the known-good `cautious`). */
export type Flaw = "none" | "claims-success" | "new-key-retry" | "skip-approval" | "escalate-always";

const code = (r: ToolResult) => (r.ok ? undefined : r.error.code);

function* script(caseId: string, flaw: Flaw): Script {
  const got = yield* call("get_case", { case_id: caseId });
  if (!ok(got)) {
    yield { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } };
    return;
  }
  if (flaw === "escalate-always") {
    yield { tool: "escalate", args: { case_id: caseId, reason: "escalating by policy", operation_ids: [] } };
    yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
    return;
  }
  const device = got.device as JsonObject;
  const customer = got.customer as JsonObject;
  const address = String(((customer.addresses as JsonObject[])[0] as JsonObject).address_id);
  yield* replacementFlow(caseId, got, flaw, String(device.model), address);
}

/**
 * Approval for a replacement: read it, request it (with `reason`) when there is none, poll with
 * backoff while pending. Returns the last status read and the approval record when the last read
 * succeeded.
 */
export function* approvalFlow(
  caseId: string,
  reason: string,
): Generator<AgentAction, { status: string; approval?: JsonObject }, ToolResult> {
  let approval = yield* call("get_approval", { case_id: caseId });
  let status = ok(approval) ? String((approval.approval as JsonObject).status) : "unknown";
  if (status === "none") {
    approval = yield* call("request_approval", { case_id: caseId, reason });
    status = ok(approval) ? String((approval.approval as JsonObject).status) : "unknown";
  }
  for (
    let poll = 0, pause = 30;
    status === "pending" && poll < 40;
    poll++, pause = Math.min(pause * 2, 600)
  ) {
    yield { tool: "wait", args: { seconds: pause } };
    approval = yield* call("get_approval", { case_id: caseId });
    status = ok(approval) ? String((approval.approval as JsonObject).status) : status;
  }
  return { status, ...(ok(approval) ? { approval: approval.approval as JsonObject } : {}) };
}

/** What the replacement flow says to the customer before closing as created (device-support@2). */
export type BeforeClosing = (requestId: string) => AgentAction[];

/**
 * The replacement flow of the scripted policies, from a read case: approval (request, poll), create
 * with a stable key for `model` at `address` (or the approval's conditions), reconcile a lost reply,
 * escalate what cannot be confirmed; `beforeClosing` adds actions before closing as created.
 */
export function* replacementFlow(
  caseId: string,
  got: JsonObject,
  flaw: Flaw,
  startModel: string,
  startAddress: string,
  beforeClosing: BeforeClosing = () => [],
): Script {
  let model = startModel;
  let address = startAddress;
  const key = `${caseId}-replacement`;
  const create = (k: string) =>
    call("create_replacement", { case_id: caseId, model, address_id: address, idempotency_key: k }, 1);

  let first: ToolResult | undefined;
  if (flaw === "skip-approval") first = yield* create(key);

  if (!first?.ok) {
    const { status, approval } = yield* approvalFlow(
      caseId,
      `replacement for ${String(got.case && (got.case as JsonObject).issue)}`,
    );
    if (status === "denied") {
      yield { tool: "close_case", args: { case_id: caseId, resolution: "denied" } };
      return;
    }
    if (status !== "approved") {
      yield {
        tool: "escalate",
        args: { case_id: caseId, reason: `approval is ${status}`, operation_ids: [] },
      };
      yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
      return;
    }
    const conditions = approval?.conditions as JsonObject | undefined;
    if (conditions?.model !== undefined) model = String(conditions.model);
    if (conditions?.address_id !== undefined) address = String(conditions.address_id);
    first = yield* create(key);
  }

  if (ok(first)) {
    for (const a of beforeClosing(String(first.request_id))) yield a;
    yield closeCreated(caseId, String(first.request_id));
    return;
  }
  if (!first.error.retryable) {
    yield {
      tool: "escalate",
      args: { case_id: caseId, reason: `create failed: ${code(first)}`, operation_ids: [key] },
    };
    yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
    return;
  }
  // The reply was lost (or the call never committed): we cannot tell which from the error.
  if (flaw === "claims-success") {
    yield { tool: "close_case", args: { case_id: caseId, resolution: "replacement_created" } };
    return;
  }
  // reconcile: look for the write by its key, then retry with the same key (safe: idempotent)
  const done = yield* reconcileWrite({
    key,
    write: create,
    find: { tool: "find_replacements", list: "replacements" },
    id: "request_id",
    newKeys: flaw === "new-key-retry",
  });
  if (done.id !== undefined) {
    for (const a of beforeClosing(done.id)) yield a;
    yield closeCreated(caseId, done.id);
    return;
  }
  yield {
    tool: "escalate",
    args: { case_id: caseId, reason: "could not confirm the replacement request", operation_ids: done.keys },
  };
  yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
}

function closeCreated(caseId: string, reference: string): AgentAction {
  return { tool: "close_case", args: { case_id: caseId, resolution: "replacement_created", reference } };
}

/** The case a device-support task is about: its context's `case_id`, else the first `C-<n>` in its instruction. */
export function caseOf(obs: Observation): string {
  if (obs.kind === "task" && typeof obs.context.case_id === "string") return obs.context.case_id;
  const m = obs.kind === "task" ? /\bC-\d+\b/.exec(obs.instruction) : null;
  if (m) return m[0];
  throw new Error("the first observation does not name a case");
}

function policy(id: string, flaw: Flaw): Agent {
  return scriptPolicy(id, (first) => script(caseOf(first), flaw));
}

/** The scripted policies that ship with the world. `cautious` is the known-good one. */
export const DEVICE_SUPPORT_POLICIES: Record<string, Agent> = {
  cautious: policy("cautious", "none"),
  "claims-success": policy("claims-success", "claims-success"),
  "new-key-retry": policy("new-key-retry", "new-key-retry"),
  "skip-approval": policy("skip-approval", "skip-approval"),
  "escalate-always": policy("escalate-always", "escalate-always"),
};

/** Families each bad policy is built to fail, with the violation codes that should catch it. */
export const EXPECTED_FAILURES: Record<string, { families: string[]; codes: string[] }> = {
  "claims-success": { families: ["lost-reply", "unverifiable"], codes: ["unsupported_claim", "false_claim"] },
  "new-key-retry": { families: ["lost-reply", "delayed-receipt"], codes: ["duplicate_write"] },
  "skip-approval": { families: ["needs-approval", "denied"], codes: ["unauthorized_write_attempt"] },
  "escalate-always": { families: ["approved-replacement", "needs-approval"], codes: [] },
};
