import { ERROR_CATALOGUE, FAULT_MEANINGS, FAULTS, WIRE_ERRORS } from "./error-catalogue.ts";
import { TOOL_ERRORS } from "./tool-error-catalogue.ts";

function table(header: string[], rows: string[][]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const all = [header, ...rows].map((r) => r.map(cell));
  const widths = header.map((_, i) => Math.max(3, ...all.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [
    line(all[0]),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...all.slice(1).map(line),
  ].join("\n");
}

const code = (c: string) => `\`${c}\``;

/** `docs/errors.md`: the error catalogue as Markdown tables (a test keeps the file equal to this). */
export function renderErrorDoc(): string {
  const errors = Object.entries(ERROR_CATALOGUE)
    .sort(([a, x], [b, y]) => FAULTS.indexOf(x.fault) - FAULTS.indexOf(y.fault) || a.localeCompare(b))
    .map(([c, e]) => [code(c), e.fault, e.meaning]);
  const wire = Object.entries(WIRE_ERRORS).map(([c, e]) => [
    code(c),
    String(e.status),
    code(e.remote),
    ERROR_CATALOGUE[e.remote].fault,
    e.meaning,
  ]);
  const tools = Object.entries(TOOL_ERRORS).map(([c, e]) => [code(c), e.retryable ? "yes" : "no", e.meaning]);
  return `# Error codes

<!-- Generated from src/core/error-catalogue.ts by renderErrorDoc(); test/core/error-catalogue.test.ts
     checks this file against it (PROVING_WRITE_DOCS=1 on that test rewrites it). -->

Every error the gym raises has a stable code and exactly one fault, taken from one table
(\`src/core/error-catalogue.ts\`): \`new ProvingError(code, message)\` looks the fault up, so a code
cannot be raised with two faults, and a code missing from the table does not compile.

${table(
  ["fault", "who is to blame"],
  FAULTS.map((f) => [code(f), FAULT_MEANINGS[f]]),
)}

## Errors

${table(["code", "fault", "meaning"], errors)}

## Wire codes of \`proving serve\`

What a server answers (\`{message, code, ...}\` as an HTTP body or the \`data\` of a WebSocket \`error\`
message). A client (\`ServeClient\`, \`WsEpisodeClient\`) raises the \`remote_*\` error named here, and the
status decides the fault: a 4xx is the caller's (config or agent, as the meaning says), a 5xx or a
network failure is infrastructure. A code this table does not know becomes \`remote_rejected\` (4xx) or
\`remote_server_error\`.

${table(["wire code", "status", "client raises", "fault", "meaning"], wire)}

## Tool error codes (observations)

What an agent's call can answer: \`{ok: false, error: {code, message, retryable}}\`. These are
observations, not exceptions: they have no fault and never end a trial. Harness rules may be configured
to answer other codes (\`rule.disable-tool@1\` and \`rule.lose-reply-after-commit@1\` take a \`code\`).

${table(["code", "retryable", "meaning"], tools)}
`;
}
