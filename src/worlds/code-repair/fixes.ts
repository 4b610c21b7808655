/**
 * The mechanical rewrites the known-good `fixer` recognises, each from a source's text alone (the
 * code-repair admissible actions offer the same rewrites of the sources an agent has read).
 */

/** One fix: how it recognises the bug in a source, and the fixed source (undefined: not this bug). */
export type Fix = (source: string) => string | undefined;

export const FIXES: readonly Fix[] = [
  // off-by-one: an inclusive range summed with `<`
  (s) =>
    /for \(let i = (\w+); i < (\w+); i\+\+\)/.test(s)
      ? s.replace(/for \(let i = (\w+); i < (\w+); i\+\+\)/, "for (let i = $1; i <= $2; i++)")
      : undefined,
  // wrong branch: a lower threshold tested before a higher one
  (s) => {
    const m = /( *)if \((\w+) >= (\d+)\) return ("\w+");\n( *)else if \(\2 >= (\d+)\) return ("\w+");/.exec(
      s,
    );
    if (!m || Number(m[6]) <= Number(m[3])) return undefined;
    return s.replace(
      m[0],
      `${m[1]}if (${m[2]} >= ${m[6]}) return ${m[7]};\n${m[5]}else if (${m[2]} >= ${m[3]}) return ${m[4]};`,
    );
  },
  // missing null check: a nested read, with the fallback the comment documents
  (s) => {
    const m = /return (\w+)\.(\w+)\.(\w+);/.exec(s);
    const fallback = /or "([^"]+)" when/.exec(s)?.[1];
    if (!m || fallback === undefined) return undefined;
    return s.replace(
      m[0],
      `return (${m[1]} && ${m[1]}.${m[2]} && ${m[1]}.${m[2]}.${m[3]}) || ${JSON.stringify(fallback)};`,
    );
  },
  // wrong API: Array#sort without a comparator, in place
  (s) =>
    /(\w+)\.sort\(\)/.test(s) ? s.replace(/(\w+)\.sort\(\)/, "[...$1].sort((a, b) => a - b)") : undefined,
  // timing order: values pushed in completion order
  (s) =>
    /\.forEach\(\((\w+)\) => \{/.test(s) && /values\.push\(value\);/.test(s)
      ? s
          .replace(/\.forEach\(\((\w+)\) => \{/, ".forEach(($1, index) => {")
          .replace("values.push(value);", "values[index] = value;")
      : undefined,
];
