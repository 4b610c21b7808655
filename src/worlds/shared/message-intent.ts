import type { CustomerProfile, FactKey, MessageIntent, ReplyActs } from "./customer-simulator.ts";

/** Lower case, letters and digits only, single spaces: how messages are compared. */
export const normalizeText = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/** Whether `text` names `value` (as whole words, after normalising both). */
export function mentions(text: string, value: string): boolean {
  const v = normalizeText(value);
  return v.length > 0 && ` ${normalizeText(text)} `.includes(` ${v} `);
}

/** The address candidates a customer or an agent might name: the customer's own and those on file. */
const addressCandidates = (p: CustomerProfile): string[] => [
  ...new Set([p.facts.address, ...p.onFile.address]),
];

/** The first candidate `text` names, longest first (so `12 Elm St` is not read inside `112 Elm St`). */
function named(text: string, candidates: readonly string[]): string | undefined {
  return [...candidates].sort((a, b) => b.length - a.length).find((c) => mentions(text, c));
}

const ASKS: Record<FactKey, RegExp> = {
  address: /\b(address|ship(ping)? (it )?to|deliver|where)\b/i,
  model: /\b(model|which (device|phone)|what (device|phone))\b/i,
  wants: /\b(still (want|need)|proceed|go ahead|do you (want|need)|would you like)\b/i,
};
const WITHDRAW = /\b(no longer|don'?t need|do not need|cancel|withdraw)\b/i;
const REFUSE = /\b(cannot|can'?t|can not|unable|not able|only one|not possible|won'?t be able)\b/i;

/**
 * How a customer reads an agent's message (deterministic keyword reading, documented in
 * docs/spec-device-support-v2.md): the facts it asks for, the values it reads back or proposes
 * (any address or device model it names; "no longer"/"cancel" proposes not wanting it), and whether it
 * refuses something. A fact with a proposal is not also asked.
 */
export function readIntent(text: string, p: CustomerProfile): MessageIntent {
  const proposes: MessageIntent["proposes"] = {};
  const address = named(text, addressCandidates(p));
  if (address !== undefined) proposes.address = address;
  const model = named(text, p.models);
  if (model !== undefined) proposes.model = model;
  if (WITHDRAW.test(text)) proposes.wants = "no";
  const asks = (Object.keys(ASKS) as FactKey[]).filter(
    (k) => proposes[k] === undefined && ASKS[k].test(text),
  );
  return { asks, proposes, refuses: REFUSE.test(text) };
}

const YES = /^\W*(yes|yeah|yep|correct|that'?s (right|correct)|right|exactly|sure|ok(ay)?|confirmed)\b/i;

/**
 * The acts of a free-text reply (an LLM simulator's): which facts it states (any address or model it
 * names; "yes"/"no" to a question about wanting the replacement) and which read-back values it agrees
 * to (it starts with a yes and names no other value) or rejects.
 */
export function actsOfText(text: string, p: CustomerProfile, intent: MessageIntent): ReplyActs {
  const acts: ReplyActs = { stated: {}, confirmed: {}, refused: {} };
  const address = named(text, addressCandidates(p));
  if (address !== undefined) acts.stated.address = address;
  const model = named(text, p.models);
  if (model !== undefined) acts.stated.model = model;
  const yes = YES.test(text);
  const no = /^\W*(no|nope)\b/i.test(text);
  if (WITHDRAW.test(text) && !/\b(don'?t|do not) cancel\b/i.test(text)) acts.stated.wants = "no";
  else if (intent.asks.includes("wants") && yes) acts.stated.wants = "yes";
  else if (intent.proposes.wants !== undefined && no) acts.stated.wants = "yes";
  for (const key of Object.keys(intent.proposes) as FactKey[]) {
    const v = intent.proposes[key] as string;
    const other = acts.stated[key] !== undefined && normalizeText(acts.stated[key]) !== normalizeText(v);
    if (key === "wants") {
      if (acts.stated.wants === "no" || (yes && !no)) acts.confirmed.wants = "no";
      else acts.refused.wants = "no";
    } else if (yes && !other) acts.confirmed[key] = v;
    else acts.refused[key] = v;
  }
  return acts;
}
