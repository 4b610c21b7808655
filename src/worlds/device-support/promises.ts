/** What an agent's message to the customer promises: a replacement, an escalation to a human. */
export type PromiseKind = "replacement" | "escalation";

const SENTENCE = /[^.!?]+[.!?]*/g;
const NEGATED = /\b(not|no|never|cannot|unable)\b|n't\b/i;
const COMMITTED = /\b(will|'ll|have|'ve|has been|is being|are being|am|is on|on (its|the) way)\b/i;
const REPLACEMENT = /\b(replacement|another one|new one|new (device|phone))\b/i;
const SHIPPING = /\b(creat\w*|arrang\w*|ship\w*|send\w*|sent|dispatch\w*|order\w*|on (its|the) way)\b/i;
const ESCALATION = /\b(escalat\w*|specialist|colleague|human agent|supervisor)\b/i;

/**
 * The promises in a message, read sentence by sentence (deterministic keywords, documented in
 * docs/spec-device-support-v2.md): a statement (not a question, not negated) that says a replacement
 * will be or has been created/shipped/sent, or that the case will be or has been escalated.
 */
export function promisesIn(text: string): PromiseKind[] {
  const found = new Set<PromiseKind>();
  for (const sentence of text.match(SENTENCE) ?? []) {
    const s = sentence.trim();
    if (!s || s.endsWith("?") || NEGATED.test(s) || !COMMITTED.test(s)) continue;
    if (REPLACEMENT.test(s) && SHIPPING.test(s)) found.add("replacement");
    if (ESCALATION.test(s)) found.add("escalation");
  }
  return [...found];
}
