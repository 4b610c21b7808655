// Module hooks (registered with `module.register(url, parent, {data: {out}})`) that append the URL of
// every module Node resolves inside a node_modules folder to the file `out`, one a line: what a
// process loaded from its dependencies. Plain JavaScript: hooks run on their own thread, without tsx.
import fs from "node:fs";

let out;

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (result.url.includes("/node_modules/")) fs.appendFileSync(out, `${result.url}\n`);
  return result;
}
