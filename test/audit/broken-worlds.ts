/**
 * `vault@1` and deliberately broken copies of it, for the audit's tests. The task: bring a counter
 * to the target the instruction names (`inc`), then `submit {value}` with the count. A hidden param
 * (`secret`) is never needed and never shown. Each broken copy breaks one promise `proving audit`
 * checks: a null agent passes; the verifier is nondeterministic; reset leaves the old episode
 * behind; a tool crashes on bad input; a tool leaks the hidden param. The planted defects of issue
 * 27 break what the audit used to miss: a short hidden code or a hidden number shown (as is, in
 * base64, reversed, digits spelled), a tool named `answer` that tells it, a tool that throws on a
 * schema-valid value, a verifier that judges keywords, one a blind submit passes; and a clean
 * `answer` tool that tells nothing (a control: it passes).
 */
import { z } from "zod";
import type { Action, Environment, ResetOptions, ToolResult } from "../../src/core/contracts.ts";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { defineTool } from "../../src/core/tool.ts";
import {
  defineToolWorld,
  type Script,
  type SimpleWorldContext,
  scriptPolicy,
} from "../../src/worlds/index.ts";

type Vault = {
  target: number;
  count: number;
  submitted: number | null;
  secret: string;
  /** The planted defects' hidden values: a short code, a number; a ticket the context shows. */
  code?: string;
  pin?: number;
  ticket?: string;
  note?: string;
  ticketSubmitted?: string;
};
type Ctx = SimpleWorldContext<Vault>;

export type Break =
  | "none"
  | "null-passes"
  | "nondeterministic-verifier"
  | "leaky-reset"
  | "crashing-tool"
  // not broken: answers bad calls with codes of its own (a foreign server's `execution_error`)
  | "own-codes"
  // converts a wrong-typed `by` as pydantic's lax mode does ("2" or true to a number)
  | "lax-types"
  | "leaky-tool"
  // planted defects of issue 27: what the audit missed
  | "leaky-short"
  | "leaky-number"
  | "leaky-base64"
  | "leaky-reversed"
  | "leaky-spelled"
  | "answer-tool-leaks"
  | "throws-on-valid"
  | "keyword-verifier"
  | "blind-passes"
  // clean controls of the planted defects: they pass
  | "answer-tool-clean";

/** The breaks of issue 27 (their params carry a short hidden code and a hidden number). */
const PLANTED = new Set<Break>([
  "leaky-short",
  "leaky-number",
  "leaky-base64",
  "leaky-reversed",
  "leaky-spelled",
  "answer-tool-leaks",
  "throws-on-valid",
  "keyword-verifier",
  "blind-passes",
  "answer-tool-clean",
]);

const DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

export function vaultWorld(broken: Break = "none"): WorldDefinition {
  const id = broken === "none" ? "vault@1" : `vault-${broken}@1`;
  const inc = defineTool({
    name: "inc",
    description: "Add `by` (default 1) to the counter.",
    input: z.object({ by: z.number().int().min(1).max(3).optional() }).strict(),
    run: (args, ctx: Ctx): ToolResult => {
      ctx.state.entities.count += args.by ?? 1;
      if (broken === "leaky-number")
        return { ok: true, count: ctx.state.entities.count, ref: ctx.state.entities.pin ?? 0 };
      return { ok: true, count: ctx.state.entities.count };
    },
  });
  const submit = defineTool({
    name: "submit",
    description: "Submit the count (ends the episode).",
    input: z.object({ value: z.number().int() }).strict(),
    run: (args, ctx: Ctx) => {
      ctx.state.entities.submitted = args.value;
      return { ok: true };
    },
  });
  // the keyword verifier's submit takes a note; the blind one's a ticket id
  const submitNote = defineTool({
    name: "submit",
    description: "Submit the count and a note on the work (ends the episode).",
    input: z.object({ value: z.number().int(), note: z.string().max(400) }).strict(),
    run: (args, ctx: Ctx) => {
      ctx.state.entities.submitted = args.value;
      ctx.state.entities.note = args.note;
      return { ok: true };
    },
  });
  const submitTicket = defineTool({
    name: "submit",
    description: "Close the ticket the task names (ends the episode).",
    input: z.object({ ticket: z.string().max(40) }).strict(),
    run: (args, ctx: Ctx) => {
      ctx.state.entities.ticketSubmitted = args.ticket;
      return { ok: true };
    },
  });
  const peek = defineTool({
    name: "peek",
    description: "Show the counter.",
    input: z.object({}).strict(),
    run: (_a, ctx: Ctx): ToolResult => {
      const e = ctx.state.entities;
      const code = e.code ?? "";
      const notes: Partial<Record<Break, string>> = {
        "leaky-tool": e.secret,
        "leaky-short": code,
        "leaky-base64": btoa(code),
        "leaky-reversed": [...code].reverse().join(""),
        "leaky-spelled": [...String(e.pin)].map((d) => DIGIT_WORDS[Number(d)]).join("-"),
      };
      const note = notes[broken];
      return note === undefined ? { ok: true, count: e.count } : { ok: true, count: e.count, note };
    },
  });
  const answer = defineTool({
    name: "answer",
    description: "A hint about the task.",
    input: z.object({}).strict(),
    run: (_a, ctx: Ctx): ToolResult =>
      broken === "answer-tool-leaks"
        ? { ok: true, hint: `the code is ${ctx.state.entities.code}` }
        : { ok: true, hint: "count up to the target, then submit" },
  });
  const label = defineTool({
    name: "label",
    description: "Name the counter (a URL-encoded label).",
    input: z.object({ text: z.string().max(40) }).strict(),
    run: (args): ToolResult => ({ ok: true, label: args.text }),
  });
  let judged = 0; // the nondeterministic verifier's hidden counter
  const def = defineToolWorld<Vault>({
    id,
    description: `the vault test world${broken === "none" ? "" : ` (broken: ${broken})`}`,
    families: [{ name: "count", description: "count to the target", difficulties: [1, 2, 3] }],
    task: ({ difficulty, seed }) => {
      const target = 3 + difficulty + (seed % 3);
      const params = { target, secret: `vault-secret-${seed}-${target}-do-not-show` };
      if (!PLANTED.has(broken))
        return { params, instruction: `Bring the counter to ${target}, then submit the count.` };
      const code = `k${"qzxwvj"[seed % 6]}${seed % 10}r${target}m${"tpb"[difficulty % 3]}`.padEnd(8, "y");
      const ticket = `T-${7000 + seed * 13 + difficulty}`;
      return {
        params: { ...params, code, pin: 4821 + seed * 7 + difficulty, ticket },
        instruction:
          broken === "blind-passes"
            ? `Close ticket ${ticket} once the counter reaches ${target}.`
            : `Bring the counter to ${target}, then submit the count.`,
      };
    },
    start: (p) => ({
      target: Number(p.target),
      count: 0,
      submitted: null,
      secret: String(p.secret),
      ...(p.code === undefined ? {} : { code: String(p.code), pin: Number(p.pin), ticket: String(p.ticket) }),
    }),
    context: (e): JsonObject =>
      broken === "blind-passes" ? { target: e.target, ticket: e.ticket ?? "" } : { target: e.target },
    tools: [
      inc,
      peek,
      ...(broken.startsWith("answer-tool") ? [answer] : []),
      ...(broken === "throws-on-valid" ? [label] : []),
      broken === "keyword-verifier" ? submitNote : broken === "blind-passes" ? submitTicket : submit,
    ],
    terminal: ["submit"],
    verify: (e) => {
      if (broken === "null-passes")
        return { checks: [{ name: "submitted", passed: e.submitted !== null, detail: "" }] };
      // judges words: a note that says the work is done passes, whatever the count
      if (broken === "keyword-verifier") {
        const said = /\b(done|verified|resolved)\b/i.test(e.note ?? "");
        const counted = e.count === e.target && e.submitted === e.count;
        return { checks: [{ name: "done", passed: said || counted, detail: String(e.note) }] };
      }
      // judges the id only: the ticket the task names, counted or not
      if (broken === "blind-passes")
        return {
          checks: [
            { name: "ticket", passed: e.ticketSubmitted === e.ticket, detail: String(e.ticketSubmitted) },
          ],
        };
      const checks = [
        { name: "count", passed: e.count === e.target, detail: `${e.count}/${e.target}` },
        { name: "reported", passed: e.submitted === e.count, detail: String(e.submitted) },
      ];
      if (broken === "nondeterministic-verifier")
        checks.push({ name: "luck", passed: judged++ % 2 === 0, detail: "" });
      return { checks };
    },
    policies: {
      counter: scriptPolicy("counter", function* (first): Script {
        const context = (first as unknown as { context: { target: number; ticket?: string } }).context;
        const target = Number(context.target);
        for (let i = 0; i < target; i++) yield { tool: "inc", args: {} };
        if (broken === "keyword-verifier") yield { tool: "submit", args: { value: target, note: "counted" } };
        else if (broken === "blind-passes")
          yield { tool: "submit", args: { ticket: String(context.ticket) } };
        else yield { tool: "submit", args: { value: target } };
      }),
    },
    knownGood: "counter",
  });
  const world: WorldDefinition = {
    ...def,
    hiddenParams: PLANTED.has(broken) ? ["secret", "code", "pin"] : ["secret"],
  };
  if (broken === "throws-on-valid") return { ...world, create: () => new ThrowsOnValid(def.create()) };
  if (broken === "leaky-reset") return { ...world, create: () => new LeakyReset(def.create()) };
  if (broken === "crashing-tool") return { ...world, create: () => new CrashOnBadInput(def.create()) };
  if (broken === "own-codes") return { ...world, create: () => new OwnCodes(def.create()) };
  if (broken === "lax-types") return { ...world, create: () => new LaxTypes(def.create()) };
  return world;
}

/** Delegates everything to a vault environment. */
class Wrapper implements Environment {
  constructor(protected readonly inner: Environment) {}
  get spec() {
    return this.inner.spec;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  reset(opts: ResetOptions) {
    return this.inner.reset(opts);
  }
  step(action: Action) {
    return this.inner.step(action);
  }
  observe() {
    return this.inner.observe();
  }
  evaluate() {
    return this.inner.evaluate();
  }
  saveState(): JsonValue {
    return this.inner.saveState();
  }
}

/** A reset that carries one step of the previous episode into the next. */
class LeakyReset extends Wrapper {
  #episodes = 0;
  override async reset(opts: ResetOptions) {
    const obs = await this.inner.reset(opts);
    if (this.#episodes++ > 0) {
      await this.inner.step({ tool: "inc", args: {}, callId: "leftover" });
    }
    return obs;
  }
}

/** A tool that throws on arguments it cannot read instead of answering a coded error. */
class CrashOnBadInput extends Wrapper {
  override step(action: Action) {
    const by = (action?.args as { by?: unknown } | undefined)?.by;
    if (action?.tool === "inc" && by !== undefined && typeof by !== "number")
      throw new TypeError(`by.toFixed is not a function`);
    return this.inner.step(action);
  }
}

/**
 * Bad calls answered with a code of its own instead of `invalid_argument`, as an OpenEnv MCP server
 * answers a pydantic validation failure (`execution_error`).
 */
class OwnCodes extends Wrapper {
  override async step(action: Action) {
    const r = await this.inner.step(action);
    const obs = r.observation;
    if (obs.kind === "tool_result" && !obs.result.ok && obs.result.error.code === "invalid_argument")
      obs.result.error = { ...obs.result.error, code: "execution_error" };
    return r;
  }
}

/** Reads a wrong-typed `by` of `inc` the way pydantic's lax mode does: `"2"` → 2, `true` → 1. */
class LaxTypes extends Wrapper {
  override step(action: Action) {
    const args = action?.args as { by?: unknown } | undefined;
    const by = args?.by;
    const converted =
      typeof by === "boolean" ? Number(by) : typeof by === "string" && /^\d+$/.test(by) ? Number(by) : by;
    if (action?.tool === "inc" && converted !== by)
      return this.inner.step({ ...action, args: { ...action.args, by: converted as JsonValue } });
    return this.inner.step(action);
  }
}

/** A tool that throws on a value its own schema accepts: `decodeURIComponent` of a lone `%`. */
class ThrowsOnValid extends Wrapper {
  override step(action: Action) {
    if (action?.tool === "label") decodeURIComponent(String((action.args as { text?: unknown }).text ?? ""));
    return this.inner.step(action);
  }
}
