// An outside policy for Proving Ground, in plain JavaScript: a module agent for device-support@1.
//
//   npx proving run --agent examples/policy.mjs --family lost-reply --trials 20
//
// THE MODULE INTERFACE
// The default export is an Agent:
//
//   export default {
//     id: "my-policy",                 // how reports name it (default: the file name)
//     start(episode) {                 // called once per trial; may be async
//       // episode = { episodeId, world, instruction, tools: [{name, description, input_schema}], samplingSeed }
//       return {
//         async act(observation) {     // called for every observation, returns the next action
//           return { tool: "get_case", args: { case_id: "C-01234" } };   // callId optional
//         },
//         async end(summary) {},       // optional: { episodeId, outcome, verdict?, last? } when the trial ends
//       };
//     },
//   };
//
// Observations: the first is `{kind: "task", instruction, context: {case_id}, tools}`; every later one is
// `{kind: "tool_result", tool, callId, result, now}` where `result` is `{ok: true, ...}` or
// `{ok: false, error: {code, message, retryable}}` and `now` is virtual seconds. A failed call never
// ends the episode; `close_case` does. If act() throws, returns something that is not an action
// (`{tool: string, args: object}`), or never answers within the wall-clock budget, the trial is
// recorded as `agent_error` (or `timeout`) — the run goes on.
//
// An action may carry `meta: {tokensIn, tokensOut, costUsd}` so token and cost budgets apply.
//
// THE POLICY
// Written as a generator, so the plan reads top to bottom: each `yield` hands an action to the runner
// and gets back the tool's result. What makes it safe in this world:
// - it creates a replacement only once the approval is `approved`, and follows the approval's conditions;
// - it uses ONE idempotency key per case, so retrying can never create a second replacement;
// - after a timeout it cannot know whether the write committed, so it reconciles: it looks the key up
//   with find_replacements, and retries with the SAME key (an accepted reply is evidence too);
// - it never claims a replacement it has not seen; when nothing can confirm the write it escalates
//   with the key in operation_ids and closes the case as escalated.

const READ_RETRIES = 6; // attempts of a repeatable call on retryable errors (rate limits, brief outages)
const RECONCILE_ROUNDS = 5; // look-up + same-key retry rounds after an unanswered create
const MAX_APPROVAL_POLLS = 30;

/**
 * Calls a tool that is safe to repeat (reads, and request_approval, which changes nothing when asked
 * twice), waiting out `rate_limited` (honouring retry_after) and other retryable errors. Never used for
 * create_replacement: its retries go through reconciliation (step 4).
 */
function* retrying(tool, args, { retryUnavailable = true } = {}) {
  let result = yield { tool, args };
  for (let attempt = 1; attempt < READ_RETRIES && !result.ok && result.error.retryable; attempt++) {
    const code = result.error.code;
    if (code === "unavailable" && !retryUnavailable) break;
    const after = result.error.retry_after;
    yield {
      tool: "wait",
      args: { seconds: typeof after === "number" ? Math.max(1, Math.ceil(after)) : 10 * attempt },
    };
    result = yield { tool, args };
  }
  return result;
}

function* escalateAndClose(caseId, reason, operationIds) {
  yield { tool: "escalate", args: { case_id: caseId, reason, operation_ids: operationIds } };
  yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
}

function closeCreated(caseId, reference) {
  return { tool: "close_case", args: { case_id: caseId, resolution: "replacement_created", reference } };
}

/** The whole episode for one case. */
function* play(caseId) {
  // 1. Read the case: the device model and the customer's first address are the defaults.
  const got = yield* retrying("get_case", { case_id: caseId });
  if (!got.ok) {
    yield* escalateAndClose(caseId, `cannot read the case: ${got.error.code}`, []);
    return;
  }
  let model = got.device.model;
  let addressId = got.customer.addresses[0].address_id;

  // 2. Approval: read it; request it when there is none; poll with backoff while it is pending.
  let approval = yield* retrying("get_approval", { case_id: caseId });
  let status = approval.ok ? approval.approval.status : "unknown";
  if (status === "none") {
    const requested = yield* retrying("request_approval", {
      case_id: caseId,
      reason: `replacement: ${got.case.issue}`,
    });
    status = requested.ok ? requested.approval.status : "unknown";
  }
  for (let poll = 0, pause = 30; status === "pending" && poll < MAX_APPROVAL_POLLS; poll++) {
    yield { tool: "wait", args: { seconds: pause } };
    pause = Math.min(pause * 2, 600);
    approval = yield* retrying("get_approval", { case_id: caseId });
    if (approval.ok) status = approval.approval.status;
  }
  if (status === "denied") {
    yield { tool: "close_case", args: { case_id: caseId, resolution: "denied" } };
    return;
  }
  if (status !== "approved") {
    yield* escalateAndClose(caseId, `approval is ${status}`, []);
    return;
  }
  // The approval may set conditions: they win over the case's own model and address.
  const conditions = approval.ok ? approval.approval.conditions : undefined;
  if (conditions?.model !== undefined) model = conditions.model;
  if (conditions?.address_id !== undefined) addressId = conditions.address_id;

  // 3. Create, with one key for this case, used for every retry.
  const key = `${caseId}-replacement`;
  const create = {
    tool: "create_replacement",
    args: { case_id: caseId, model, address_id: addressId, idempotency_key: key },
  };
  let created = yield create;
  if (created.ok) {
    yield closeCreated(caseId, created.request_id);
    return;
  }
  if (!created.error.retryable) {
    yield* escalateAndClose(caseId, `create_replacement failed: ${created.error.code}`, [key]);
    return;
  }

  // 4. No answer (timeout, outage): the write may or may not have committed. Reconcile by the key.
  for (let round = 0, pause = 15; round < RECONCILE_ROUNDS; round++) {
    const found = yield* retrying("find_replacements", { idempotency_key: key }, { retryUnavailable: false });
    if (found.ok && found.replacements.length > 0) {
      yield closeCreated(caseId, found.replacements[0].request_id);
      return;
    }
    created = yield create; // the same key: replays the committed request or commits the first one
    if (created.ok) {
      yield closeCreated(caseId, created.request_id);
      return;
    }
    if (!created.error.retryable) break;
    yield { tool: "wait", args: { seconds: pause } };
    pause = Math.min(pause * 3, 900);
  }
  // 5. Nothing confirms the write: hand it to a human with the key, never claim it.
  yield* escalateAndClose(caseId, "could not confirm whether the replacement request was created", [key]);
}

/** The case id from the first observation (its context, else the instruction). */
function caseIdOf(observation) {
  if (typeof observation.context?.case_id === "string") return observation.context.case_id;
  const match = /\bC-\d+\b/.exec(observation.instruction ?? "");
  if (!match) throw new Error("the task names no case id");
  return match[0];
}

export default {
  id: "example-policy",
  start(_episode) {
    let script;
    let lastAction;
    return {
      async act(observation) {
        let step;
        if (!script) {
          script = play(caseIdOf(observation));
          step = script.next();
        } else {
          step = script.next(observation.result);
        }
        // The script has closed the case; the runner stops at close_case, so this is only a safeguard.
        if (step.done) return lastAction;
        lastAction = step.value;
        return step.value;
      },
    };
  },
};
