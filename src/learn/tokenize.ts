/** Words for retrieval: lower case, letters and digits, `snake_case` also split, a few stop words dropped. */
const STOP = new Set(
  "a an and are as at be by for from has have if in into is it its of on or so that the their then this to was were when with".split(
    " ",
  ),
);

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    if (!STOP.has(word)) out.push(word);
    if (word.includes("_")) for (const part of word.split("_")) if (part && !STOP.has(part)) out.push(part);
  }
  return out;
}
