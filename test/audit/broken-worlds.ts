/**
 * `vault@1` and deliberately broken copies of it, for the audit's tests. The task: bring a counter
 * to the target the instruction names (`inc`), then `submit {value}` with the count. A hidden param
 * (`secret`) is never needed and never shown. Each broken copy breaks one promise `proving audit`
 * checks: a null agent passes; the verifier is nondeterministic; reset leaves the old episode
 * behind; a tool crashes on bad input; a tool leaks the hidden param.
 */
import { z } from "zod";
import type { Action, Environment, ResetOptions, ToolResult } from "../../src/core/contracts.ts";
import type { JsonValue } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { defineTool } from "../../src/core/tool.ts";
import {
  defineToolWorld,
  type Script,
  type SimpleWorldContext,
  scriptPolicy,
} from "../../src/worlds/index.ts";

type Vault = { target: number; count: number; submitted: number | null; secret: string };
type Ctx = SimpleWorldContext<Vault>;

export type Break =
  | "none"
  | "null-passes"
  | "nondeterministic-verifier"
  | "leaky-reset"
  | "crashing-tool"
  | "leaky-tool";

export function vaultWorld(broken: Break = "none"): WorldDefinition {
  const id = broken === "none" ? "vault@1" : `vault-${broken}@1`;
  const inc = defineTool({
    name: "inc",
    description: "Add `by` (default 1) to the counter.",
    input: z.object({ by: z.number().int().min(1).max(3).optional() }).strict(),
    run: (args, ctx: Ctx) => {
      ctx.state.entities.count += args.by ?? 1;
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
  const peek = defineTool({
    name: "peek",
    description: "Show the counter.",
    input: z.object({}).strict(),
    run: (_a, ctx: Ctx): ToolResult =>
      broken === "leaky-tool"
        ? { ok: true, count: ctx.state.entities.count, note: ctx.state.entities.secret }
        : { ok: true, count: ctx.state.entities.count },
  });
  let judged = 0; // the nondeterministic verifier's hidden counter
  const def = defineToolWorld<Vault>({
    id,
    description: `the vault test world${broken === "none" ? "" : ` (broken: ${broken})`}`,
    families: [{ name: "count", description: "count to the target", difficulties: [1, 2, 3] }],
    task: ({ difficulty, seed }) => {
      const target = 3 + difficulty + (seed % 3);
      return {
        params: { target, secret: `vault-secret-${seed}-${target}-do-not-show` },
        instruction: `Bring the counter to ${target}, then submit the count.`,
      };
    },
    start: (p) => ({ target: Number(p.target), count: 0, submitted: null, secret: String(p.secret) }),
    context: (e) => ({ target: e.target }),
    tools: [inc, peek, submit],
    terminal: ["submit"],
    verify: (e) => {
      if (broken === "null-passes")
        return { checks: [{ name: "submitted", passed: e.submitted !== null, detail: "" }] };
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
        const target = Number((first as unknown as { context: { target: number } }).context.target);
        for (let i = 0; i < target; i++) yield { tool: "inc", args: {} };
        yield { tool: "submit", args: { value: target } };
      }),
    },
    knownGood: "counter",
  });
  const world: WorldDefinition = { ...def, hiddenParams: ["secret"] };
  if (broken === "leaky-reset") return { ...world, create: () => new LeakyReset(def.create()) };
  if (broken === "crashing-tool") return { ...world, create: () => new CrashOnBadInput(def.create()) };
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
