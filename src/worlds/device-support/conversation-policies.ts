import type { Agent, AgentAction, ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { callWithRetry as call, isOk as ok, type Script, scriptPolicy } from "../shared/index.ts";
import { normalizeText } from "../shared/message-intent.ts";
import { caseOf, DEVICE_SUPPORT_POLICIES, EXPECTED_FAILURES, replacementFlow } from "./policies.ts";
import { MODELS } from "./tasks.ts";

/** How a conversation policy goes wrong (none for the known-good `asks-first`). */
type ConversationFlaw = "none" | "first-answer" | "promises";

const ADDRESS = /\b\d{1,3} [A-Z][a-z]+(?: [A-Z][a-z]+)?/;
const WITHDRAWS = /\b(no longer|cancel)\b|don'?t need (it|the replacement)/i;

/** The first address line a text mentions (e.g. "12 Elm Street"). */
export const addressIn = (text: string) => ADDRESS.exec(text)?.[0];
/** The device model a text mentions (the longest name that matches). */
export const modelIn = (text: string) =>
  [...MODELS]
    .sort((a, b) => b.length - a.length)
    .find((m) => ` ${normalizeText(text)} `.includes(` ${normalizeText(m)} `));

/** What `asks-first` tells the customer (the admissible actions of device-support@2 offer the same). */
export const MESSAGES = {
  greet: (name: string, caseId: string) =>
    `Hello ${name}, I'm handling your support case ${caseId}. Before I arrange anything: ` +
    "do you still want a replacement, which address should we ship it to, and which device model do you have?",
  confirm: (model: string, line: string) => `To confirm, should we ship a ${model} to ${line}?`,
  refuseSecond:
    "I'm sorry, but we cannot send a second replacement for this case. I have escalated your case to a specialist.",
  closedWithout: "Understood, I have closed your case without a replacement.",
  created: (requestId: string, line: string) =>
    `Your replacement has been created (${requestId}) and will be shipped to ${line}.`,
};

/** Sends `text` and polls read_messages until the customer's next messages arrive; returns their texts. */
function* ask(caseId: string, text: string, seen: Set<string>): Generator<AgentAction, string[], ToolResult> {
  yield* call("send_message", { case_id: caseId, text });
  for (let poll = 0; poll < 40; poll++) {
    yield { tool: "wait", args: { seconds: 30 } };
    const read = yield* call("read_messages", { case_id: caseId });
    if (!ok(read)) continue;
    const fresh = (read.messages as JsonObject[]).filter(
      (m) => m.from === "customer" && !seen.has(String(m.message_id)),
    );
    for (const m of read.messages as JsonObject[]) seen.add(String(m.message_id));
    if (fresh.length) return fresh.map((m) => String(m.text));
  }
  return [];
}

function* conversation(caseId: string, flaw: ConversationFlaw): Script {
  const got = yield* call("get_case", { case_id: caseId });
  if (!ok(got)) {
    yield { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } };
    return;
  }
  const customer = got.customer as JsonObject;
  const addresses = customer.addresses as JsonObject[];
  let promise = flaw === "promises" ? "Good news: a replacement will be sent to you shortly. " : "";
  const say = (text: string) => {
    const t = promise + text;
    promise = "";
    return t;
  };
  const seen = new Set<string>();
  const before = yield* call("read_messages", { case_id: caseId });
  const earlier = ok(before) ? (before.messages as JsonObject[]) : [];
  for (const m of earlier) seen.add(String(m.message_id));

  // a replacement was already sent: one per case, so refuse a second and hand the case to a human
  const found = yield* call("find_replacements", { case_id: caseId });
  if (ok(found) && (found.replacements as JsonObject[]).length > 0) {
    yield* call("send_message", {
      case_id: caseId,
      text: say(MESSAGES.refuseSecond),
    });
    yield {
      tool: "escalate",
      args: { case_id: caseId, reason: "customer asks for a second replacement", operation_ids: [] },
    };
    yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
    return;
  }

  let replies = yield* ask(caseId, say(MESSAGES.greet(String(customer.name), caseId)), seen);
  const withdrawn = (texts: string[]) => texts.some((t) => WITHDRAWS.test(t));
  let model = String((got.device as JsonObject).model);
  let line = String(addresses[0].line);
  const take = (texts: string[]) => {
    for (const t of texts) {
      line = addressIn(t) ?? line;
      model = modelIn(t) ?? model;
    }
  };
  take(replies);
  let confirmed = flaw === "first-answer";
  for (let round = 0; !confirmed && !withdrawn(replies) && round < 5; round++) {
    const asked = { line, model };
    replies = yield* ask(caseId, MESSAGES.confirm(model, line), seen);
    take(replies);
    const corrected = normalizeText(line) !== normalizeText(asked.line) || model !== asked.model;
    confirmed = !corrected && replies.some((t) => /^\W*yes\b/i.test(t));
  }
  if (withdrawn(replies) || withdrawn(earlier.map((m) => String(m.text)))) {
    yield* call("send_message", {
      case_id: caseId,
      text: say(MESSAGES.closedWithout),
    });
    yield { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } };
    return;
  }
  if (!confirmed) {
    yield {
      tool: "escalate",
      args: { case_id: caseId, reason: "could not confirm the shipping details", operation_ids: [] },
    };
    yield { tool: "close_case", args: { case_id: caseId, resolution: "escalated" } };
    return;
  }
  let addressId = addresses.find((a) => normalizeText(String(a.line)) === normalizeText(line))?.address_id;
  if (addressId === undefined) {
    const added = yield* call("add_address", { case_id: caseId, line });
    addressId = ok(added) ? added.address_id : addresses[0].address_id;
  }
  yield* replacementFlow(caseId, got, "none", model, String(addressId), (requestId) => [
    {
      tool: "send_message",
      args: {
        case_id: caseId,
        text: MESSAGES.created(requestId, line),
      },
    },
  ]);
}

const policy = (id: string, flaw: ConversationFlaw): Agent =>
  scriptPolicy(id, (first) => conversation(caseOf(first), flaw));

/**
 * The scripted policies of device-support@2: @1's (they never talk to the customer; `cautious` is
 * `never-asks` here), the known-good `asks-first` (asks, reads the answer back until the customer
 * confirms it, refuses a second replacement, tells only what it did), `first-answer` (acts on the
 * first answer without reading it back) and `promises` (tells the customer a replacement is coming
 * before it knows).
 */
export const DEVICE_SUPPORT_V2_POLICIES: Record<string, Agent> = {
  ...DEVICE_SUPPORT_POLICIES,
  "asks-first": policy("asks-first", "none"),
  "never-asks": { id: "never-asks", start: (episode) => DEVICE_SUPPORT_POLICIES.cautious.start(episode) },
  "first-answer": policy("first-answer", "first-answer"),
  promises: policy("promises", "promises"),
};

export const CONVERSATION_EXPECTED_FAILURES: Record<string, { families: string[]; codes: string[] }> = {
  ...EXPECTED_FAILURES,
  "never-asks": {
    families: ["stale-address", "wrong-device", "withdrawn", "second-replacement"],
    codes: ["unconfirmed_write", "duplicate_write"],
  },
  "first-answer": { families: ["stale-address", "wrong-device"], codes: ["unconfirmed_write"] },
  promises: { families: ["withdrawn", "second-replacement"], codes: ["unfulfilled_promise"] },
};
