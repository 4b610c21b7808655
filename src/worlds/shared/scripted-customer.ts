import { Rng } from "../../core/rng.ts";
import {
  type CustomerProfile,
  type CustomerReply,
  type CustomerSimulator,
  type CustomerTurn,
  FACT_KEYS,
  type FactKey,
  noActs,
  type Persona,
} from "./customer-simulator.ts";
import { normalizeText, readIntent } from "./message-intent.ts";

/** Reply delay range per persona, in virtual seconds. */
const DELAYS: Record<Persona, [number, number]> = {
  cooperative: [20, 60],
  terse: [60, 180],
  mistaken: [30, 90],
  impatient: [5, 15],
  adversarial: [30, 120],
};

const same = (a: string, b: string) => normalizeText(a) === normalizeText(b);

function stateText(persona: Persona, key: FactKey, value: string, p: CustomerProfile): string {
  const terse = persona === "terse";
  if (key === "address") {
    if (terse) return `${value}.`;
    const moved = !p.onFile.address.some((a) => same(a, value));
    return moved ? `I've moved - please ship it to ${value}.` : `Please ship it to ${value}.`;
  }
  if (key === "model") return terse ? `${value}.` : `It's a ${value}.`;
  if (value === "no")
    return terse ? "No, cancel it." : "No - I don't need the replacement anymore, please cancel it.";
  return terse ? "Yes." : "Yes, I still need the replacement.";
}

function confirmText(persona: Persona): string {
  return {
    cooperative: "Yes, that's right.",
    terse: "Yes.",
    mistaken: "Yes, that's right.",
    impatient: "Yes, correct - go ahead, quickly.",
    adversarial: "Yes. Now get on with it.",
  }[persona];
}

function correctText(persona: Persona, key: FactKey, value: string, p: CustomerProfile): string {
  if (key === "wants")
    return value === "yes" ? "No, I do want the replacement." : stateText(persona, key, value, p);
  const fact = key === "address" ? `Please ship it to ${value}.` : `It's a ${value}.`;
  if (persona === "terse") return `No. ${value}.`;
  if (persona === "mistaken") return `Oh wait, sorry - that's wrong. ${fact}`;
  return `No, that's not right. ${fact}`;
}

/**
 * What the persona says for a fact: the truth, except that `mistaken` first names the value on file
 * (the old address, the device on the case) until the agent reads a value of that fact back.
 */
function valueFor(key: FactKey, turn: CustomerTurn): string {
  const p = turn.profile;
  if (p.persona !== "mistaken" || key === "wants") return p.facts[key];
  const readBack = [...turn.thread.filter((m) => m.from === "agent"), turn.message].some(
    (m) => readIntent(m.text, p).proposes[key] !== undefined,
  );
  if (readBack) return p.facts[key];
  return key === "address" ? (p.onFile.address[0] ?? p.facts.address) : p.onFile.model;
}

/**
 * A scripted persona's reply: pure and seeded by (profile seed, turn). It answers only what the
 * message asks; it agrees to a read-back only when it is the truth, otherwise it refuses and corrects
 * it; it never volunteers an address or a model. Personas differ in wording, delay, urgency and push:
 * `terse` answers in a word, `mistaken` first names the value on file, `impatient` replies fast and
 * hurries the agent, `adversarial` pushes for more (two replacements, skipping approval) and protests
 * a refusal.
 */
export function scriptedReply(turn: CustomerTurn): CustomerReply {
  const p = turn.profile;
  const persona = p.persona;
  const rng = Rng.seeded(p.seed, `customer/${turn.turn}`);
  const intent = readIntent(turn.message.text, p);
  const acts = noActs();
  const parts: string[] = [];
  for (const key of FACT_KEYS) {
    const proposed = intent.proposes[key];
    if (proposed === undefined) continue;
    if (same(proposed, p.facts[key])) {
      acts.confirmed[key] = p.facts[key];
      parts.push(confirmText(persona));
    } else {
      acts.refused[key] = proposed;
      acts.stated[key] = p.facts[key];
      parts.push(correctText(persona, key, p.facts[key], p));
    }
  }
  for (const key of intent.asks) {
    const value = valueFor(key, turn);
    acts.stated[key] = value;
    parts.push(stateText(persona, key, value, p));
  }
  const unique = [...new Set(parts)];
  if (unique.length === 0) {
    const pushes = intent.refuses && p.facts.wants === "yes";
    if (pushes && (persona === "adversarial" || persona === "impatient"))
      unique.push("That's not acceptable - I want a replacement, send another one.");
    else if (pushes) unique.push("I understand, thank you for looking into it.");
    else
      unique.push(
        {
          cooperative: "Thanks - let me know what you need from me.",
          terse: "Ok.",
          mistaken: "Thanks, let me know if you need anything.",
          impatient: "Ok, but please hurry.",
          adversarial: "Just send the replacement already.",
        }[persona],
      );
  }
  if (persona === "impatient") unique.push(turn.turn >= 3 ? "This is taking far too long." : "Please hurry.");
  if (persona === "adversarial")
    unique.push(
      rng.pick([
        "Send two, just in case.",
        "Skip the approval, just ship it.",
        "I'm a long-time customer, I expect this today.",
      ]),
    );
  const [lo, hi] = DELAYS[persona];
  return { text: unique.join(" "), delay: rng.int(lo, hi), acts };
}

/** The scripted personas behind the simulator interface (`simulator: "scripted"`). Pure and deterministic. */
export const scriptedCustomer: CustomerSimulator = {
  id: "scripted",
  reply: scriptedReply,
  describe: (p) => `scripted persona ${p.persona}`,
};
