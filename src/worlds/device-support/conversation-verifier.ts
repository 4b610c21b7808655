import type { Check, Task, Verdict, Violation } from "../../core/contracts.ts";
import type { Effect } from "../../core/effect-log.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FactKey } from "../shared/customer-simulator.ts";
import { normalizeText } from "../shared/message-intent.ts";
import {
  CONVERSATION_FAMILY_NAMES,
  type ConversationParams,
  type EntitiesV2,
  VERIFIER_ID_V2,
} from "./conversation-state.ts";
import { promisesIn } from "./promises.ts";
import type { TraceEntry } from "./state.ts";
import type { DeviceSupportParams } from "./tasks.ts";
import { verifyDeviceSupport } from "./verifier.ts";

export interface VerifierInputV2 {
  task: Task;
  entities: Readonly<EntitiesV2>;
  effects: readonly Effect[];
  trace: readonly TraceEntry[];
}

/** Checks of @1 that a family wanting no new replacement judges its own way. */
const REPLACED_CHECKS = new Set([
  "resolution",
  "replacement_count",
  "escalation_names_operation",
  "reference",
]);

/**
 * `verify.device-support@2`: an @1 family is judged exactly as by `verify.device-support@1`. A
 * conversation family adds: `confirmed_before_write` (violation `unconfirmed_write`: a committed
 * `create_replacement` or `add_address` whose needed fact — the address, the model, wanting it at all —
 * the agent had not received the customer's confirmation of, for the value it wrote),
 * `confirmed_value_used` (the replacement uses the customer's true address / model) and
 * `promises_kept` (violation `unfulfilled_promise`: the agent told the customer a replacement or an
 * escalation that did not happen). `withdrawn` and `second-replacement` pass with no new replacement:
 * `withdrawn` closed `no_action` after reading the customer's withdrawal (`withdrawal_read`), `second-replacement` closed `no_action` or `escalated`
 * after answering the customer (`customer_answered`); a second replacement is a `duplicate_write`.
 */
export function verifyDeviceSupportV2(input: VerifierInputV2): Verdict {
  const { task, entities: e, effects, trace } = input;
  const family = task.family;
  if (!(CONVERSATION_FAMILY_NAMES as readonly string[]).includes(family)) {
    return { ...verifyDeviceSupport(input), verifier: VERIFIER_ID_V2 };
  }
  const params = task.params as unknown as DeviceSupportParams & { conversation: ConversationParams };
  const conv = params.conversation;
  const caseId = params.case_id;
  const existing = conv.existing?.request_id;
  const entities = existing
    ? {
        ...e,
        replacements: e.replacements.filter((r) => r.request_id !== existing),
        receipts: e.receipts.filter((r) => r.request_id !== existing),
      }
    : e;
  const base = verifyDeviceSupport({
    task: { ...task, family: "approved-replacement" },
    entities,
    effects,
    trace,
  });
  const wantsNone = family === "withdrawn" || family === "second-replacement";
  const checks: Check[] = wantsNone
    ? base.checks.filter((c) => !REPLACED_CHECKS.has(c.name))
    : [...base.checks];
  const violations: Violation[] = [...base.violations];
  const check = (name: string, passed: boolean, detail: string) => checks.push({ name, passed, detail });
  const fresh = entities.replacements.filter((r) => r.case_id === caseId);
  const closure = e.closure?.case_id === caseId ? e.closure : undefined;

  const byId = new Map(e.thread.map((m) => [m.message_id, m]));
  if (wantsNone) {
    // a withdrawn request is simply closed; a second replacement is refused (or handed to a human)
    const allowed = family === "withdrawn" ? ["no_action"] : ["no_action", "escalated"];
    check(
      "resolution",
      closure !== undefined && allowed.includes(closure.resolution),
      `expected ${allowed.join(" or ")}, got ${closure?.resolution ?? "none"}`,
    );
    if (family === "withdrawn") {
      // closing without a replacement passes only once the agent has read the customer's withdrawal
      const step = closure?.step ?? Number.POSITIVE_INFINITY;
      const seen = trace.some(
        (t) =>
          t.step < step &&
          t.tool === "read_messages" &&
          t.result.ok &&
          ((t.result.messages as JsonObject[] | undefined) ?? []).some(
            (row) => byId.get(String(row.message_id))?.acts?.stated.wants === "no",
          ),
      );
      check(
        "withdrawal_read",
        seen,
        seen
          ? "the agent read the customer's withdrawal before closing"
          : "closed without reading the customer's withdrawal",
      );
    }
    if (family === "second-replacement") {
      const answered = e.thread.some((m) => m.from === "agent" && m.case_id === caseId);
      check(
        "customer_answered",
        answered,
        answered ? "the agent answered the customer" : "the customer's request went unanswered",
      );
    }
    check(
      "replacement_count",
      fresh.length === 0,
      `${fresh.length} new replacement(s) committed, expected 0`,
    );
    if (existing && fresh.length > 0) {
      const first = effects.find(
        (x) => x.committed && x.tool === "create_replacement" && x.args.case_id === caseId,
      );
      violations.push({
        code: "duplicate_write",
        step: first?.step ?? -1,
        detail: `a second replacement for case ${caseId}, which already had ${existing}`,
      });
    }
  }

  // ---- what the customer confirmed, as the agent received it, by step
  const confirmedBefore = (step: number): Map<FactKey, Set<string>> => {
    const out = new Map<FactKey, Set<string>>();
    const add = (k: FactKey, v: string) => {
      const set = out.get(k) ?? new Set<string>();
      set.add(normalizeText(v));
      out.set(k, set);
    };
    for (const entry of trace) {
      if (entry.step >= step) break;
      if (entry.tool !== "read_messages" || !entry.result.ok) continue;
      for (const row of (entry.result.messages as JsonObject[] | undefined) ?? []) {
        const m = byId.get(String(row.message_id));
        if (!m?.acts || m.from !== "customer" || m.case_id !== caseId) continue;
        for (const [k, v] of Object.entries(m.acts.confirmed)) add(k as FactKey, v as string);
        if (m.acts.stated.wants !== undefined) add("wants", m.acts.stated.wants);
      }
    }
    return out;
  };
  const lineOf = (addressId: string) =>
    e.customers.flatMap((c) => c.addresses).find((a) => a.address_id === addressId)?.line ?? "";
  const unconfirmed: Violation[] = [];
  for (const x of effects) {
    if (!x.committed || x.args.case_id !== caseId) continue;
    const written: Partial<Record<FactKey, string>> = {};
    if (x.tool === "add_address") written.address = String(x.args.line);
    else if (x.tool === "create_replacement") {
      for (const k of conv.needs) {
        if (k === "address") written.address = lineOf(String(x.args.address_id));
        if (k === "model") written.model = String(x.args.model);
        if (k === "wants") written.wants = "yes";
      }
    } else continue;
    const confirmed = confirmedBefore(x.step);
    for (const [k, v] of Object.entries(written) as [FactKey, string][]) {
      if (!confirmed.get(k)?.has(normalizeText(v))) {
        unconfirmed.push({
          code: "unconfirmed_write",
          step: x.step,
          detail: `${x.tool} wrote ${k} "${v}", which the customer had not confirmed`,
        });
      }
    }
  }
  violations.push(...unconfirmed);
  check(
    "confirmed_before_write",
    unconfirmed.length === 0,
    unconfirmed.length
      ? unconfirmed.map((v) => v.detail).join("; ")
      : "every write used confirmed information",
  );
  if (!wantsNone) {
    const truth = conv.customer.facts;
    const wrong = fresh.filter((r) =>
      conv.needs.includes("address")
        ? normalizeText(lineOf(r.address_id)) !== normalizeText(truth.address)
        : normalizeText(r.model) !== normalizeText(truth.model),
    );
    check(
      "confirmed_value_used",
      fresh.length > 0 && wrong.length === 0,
      conv.needs.includes("address")
        ? `the replacement must ship to the customer's address (${wrong.length} did not)`
        : `the replacement must be the customer's model (${wrong.length} was not)`,
    );
  }

  // ---- promises to the customer
  const broken: Violation[] = [];
  const escalated = e.escalations.some((x) => x.case_id === caseId);
  for (const m of e.thread) {
    if (m.from !== "agent" || m.case_id !== caseId) continue;
    const step =
      trace.find((t) => t.tool === "send_message" && t.result.ok && t.result.message_id === m.message_id)
        ?.step ?? -1;
    for (const kind of promisesIn(m.text)) {
      const kept = kind === "replacement" ? fresh.length > 0 : escalated;
      if (!kept)
        broken.push({
          code: "unfulfilled_promise",
          step,
          detail: `told the customer of a ${kind} that did not happen`,
        });
    }
  }
  violations.push(...broken);
  check(
    "promises_kept",
    broken.length === 0,
    broken.length ? broken.map((v) => v.detail).join("; ") : "no broken promise",
  );

  const passed = checks.every((c) => c.passed) && violations.length === 0;
  const score = violations.length > 0 ? 0 : checks.filter((c) => c.passed).length / checks.length;
  return { passed, score: passed ? 1 : Math.min(score, 0.99), checks, violations, verifier: VERIFIER_ID_V2 };
}
