/**
 * Whether a text states a fact in other words: the simulator audit's paraphrase-aware leak test.
 * A fact is normalised to its numbers and the words around them (abbreviations spelled out: `Ave`
 * → avenue, `St` → street, ...); a text mentions it when it holds every number of the fact as a
 * number of its own and at least one of its words — or, for a fact without numbers, all its words.
 * So "number 68 on Station Avenue" mentions "68 Station Ave", and "the 14" does not mention
 * "iPhone 14" (no word of it).
 */

const ABBREVIATIONS: Record<string, string> = {
  ave: "avenue",
  av: "avenue",
  st: "street",
  rd: "road",
  ln: "lane",
  ct: "court",
  dr: "drive",
  blvd: "boulevard",
  sq: "square",
  pl: "place",
  hwy: "highway",
  apt: "apartment",
};

const STOP = new Set([
  "the",
  "and",
  "for",
  "with",
  "from",
  "your",
  "our",
  "you",
  "this",
  "that",
  "number",
  "on",
]);

const NUMBER_WORDS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
};

/** Lower-case tokens, abbreviations spelled out, number words as digits. */
function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}]+|\d+/gu) ?? []).map(
    (t) => NUMBER_WORDS[t] ?? ABBREVIATIONS[t] ?? t,
  );
}

export interface NormalisedFact {
  numbers: string[];
  words: string[];
}

/** A fact's numbers and its words (3 letters or more, no stop words). */
export function normaliseFact(fact: string): NormalisedFact {
  const all = tokens(fact);
  return {
    numbers: all.filter((t) => /^\d+$/.test(t)),
    words: all.filter((t) => !/^\d+$/.test(t) && t.length >= 3 && !STOP.has(t)),
  };
}

/** Whether `text` states `fact`, exactly or in other words. */
export function mentionsFact(text: string, fact: string): boolean {
  const f = normaliseFact(fact);
  if (f.numbers.length === 0 && f.words.length === 0) return false;
  const said = new Set(tokens(text));
  if (!f.numbers.every((n) => said.has(n))) return false;
  if (f.numbers.length === 0) return f.words.every((w) => said.has(w));
  return f.words.length === 0 || f.words.some((w) => said.has(w));
}
