import { z } from "zod";
import type { Action, Observation, StepResult } from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { Blocked, Rule, RuleDefinition, RuleDirectives, RuleState } from "../harness/rule.ts";
import type { LayerSpec } from "../harness/variant.ts";
import { type CompiledRuleCode, compileRuleCode, ruleCodeHash } from "./compile-rule-code.ts";
import { checkHookOutput } from "./hook-output.ts";
import {
  describeRuleCodeFailure,
  type RuleCodeFailure,
  type RuleHookName,
  ruleCodeFailure,
} from "./rule-code-failure.ts";
import type { LoadedRuleCode, RuleCodeSandbox } from "./rule-code-sandbox.ts";

/**
 * `rule.generated@1`: a harness rule whose hooks are generated TypeScript, run in a sandbox. Its
 * params are `{code, sha256, config?}`: the source, the sha256 of the source (checked: a variant spec
 * names its code by content hash, so the variant re-runs from the record), and optional data the code
 * reads as `state.params` (a tunable intensity). Params are checked when the variant is read: a hash
 * that does not match, code that does not compile or load, bad directives → `bad_layer_params`.
 *
 * Hooks get copies of plain data (the action, the step result without its verdict, the observation,
 * the rule state with `world`, `now`, `step`, `params`, `history`, `shadow`) and return plain data,
 * checked for shape. A hook call that fails at run time (time or memory limit, throw, escape, mutation,
 * a bad return) throws `generated_rule_failed` (fault `world`): the trial ends `infra_error`, blamed on
 * the variant's world, with the failure record in its reason. The host process and other trials go on.
 * (Passing the call through unchanged instead would make the variant silently measure the base world.)
 */
export const GENERATED_RULE_ID = "rule.generated@1";

/** `{code, sha256, config?}` (`config`: data the code reads as `state.params`). */
export type GeneratedRuleParams = JsonObject & { code: string; sha256: string };

/** `rule.generated@1` plus `prepare`: compile and load a source (cached by sha256), or its failure record. */
export interface GeneratedRuleDefinition extends RuleDefinition<GeneratedRuleParams> {
  readonly sandbox: RuleCodeSandbox;
  prepare(code: string, sha256?: string): PrepareResult;
}

export type PrepareResult =
  | { ok: true; prepared: PreparedRuleCode }
  | { ok: false; failure: RuleCodeFailure };

/** A source compiled and loaded: its code, exported hooks and checked directives. */
export interface PreparedRuleCode {
  code: CompiledRuleCode;
  loaded: LoadedRuleCode;
  directives?: RuleDirectives;
}

const tools = z.array(z.string().min(1)).optional();
const directivesSchema = z
  .object({
    shadow: z
      .object({ tools: z.array(z.string().min(1)), secondsAgo: z.number().positive() })
      .strict()
      .optional(),
    latency: z.object({ tools, seconds: z.number().positive() }).strict().optional(),
    deferJobs: z.object({ kinds: tools, seconds: z.number().positive() }).strict().optional(),
  })
  .strict();

/** The layer spec of a generated rule: the source with its sha256 (and optional `config` data). */
export function generatedRuleLayer(code: string, config?: JsonObject): LayerSpec {
  return {
    id: GENERATED_RULE_ID,
    params: { code, sha256: ruleCodeHash(code), ...(config ? { config } : {}) },
  };
}

/** A failure that ends a trial: `generated_rule_failed`, with the record as details. */
function hookFailed(failure: RuleCodeFailure): ProvingError {
  return new ProvingError(
    "generated_rule_failed",
    `${GENERATED_RULE_ID} ${failure.sha256.slice(0, 12)} ${describeRuleCodeFailure(failure)}`,
    { details: failure },
  );
}

/**
 * The `rule.generated@1` definition, running code in `sandbox`. It compiles and loads each source
 * once (by sha256) and remembers the result; `prepare` is the same check the variant reader does.
 */
export function generatedRule(sandbox: RuleCodeSandbox): GeneratedRuleDefinition {
  const cache = new Map<string, PrepareResult>();

  const prepare = (source: string, sha256?: string): PrepareResult => {
    const actual = ruleCodeHash(source);
    if (sha256 !== undefined && sha256 !== actual) {
      return {
        ok: false as const,
        failure: ruleCodeFailure(
          "hash_mismatch",
          "compile",
          `The declared sha256 ${sha256.slice(0, 12)}… is not the hash of the code (${actual.slice(0, 12)}…).`,
          actual,
        ),
      };
    }
    const known = cache.get(actual);
    if (known) return known;
    const result = prepareNew(source, actual);
    if (cache.size >= 64) cache.delete(cache.keys().next().value as string);
    cache.set(actual, result);
    return result;
  };

  const prepareNew = (source: string, sha256: string): PrepareResult => {
    const compiled = compileRuleCode(source);
    if (!compiled.ok) return compiled;
    const loaded = sandbox.load(compiled.code);
    if (!loaded.ok) return loaded;
    let directives: RuleDirectives | undefined;
    if (loaded.value.directives) {
      const d = directivesSchema.safeParse(loaded.value.directives);
      if (!d.success) {
        const issue = d.error.issues[0];
        return {
          ok: false,
          failure: ruleCodeFailure(
            "bad_exports",
            "load",
            `directives.${issue.path.join(".")}: ${issue.message} (directives are {shadow?: {tools, secondsAgo}, latency?: {tools?, seconds}, deferJobs?: {kinds?, seconds}}).`,
            sha256,
          ),
        };
      }
      directives = d.data as RuleDirectives;
    }
    return {
      ok: true,
      prepared: { code: compiled.code, loaded: loaded.value, ...(directives ? { directives } : {}) },
    };
  };

  const params = z
    .object({
      code: z.string().min(1).describe("TypeScript source of the rule module (exports hooks)."),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, "sha256 is 64 lowercase hex characters")
        .describe("sha256 (hex) of `code`."),
      config: z.record(z.string(), z.unknown()).optional().describe("Data the code reads as state.params."),
    })
    .strict()
    .superRefine((p, ctx) => {
      const r = prepare(p.code, p.sha256);
      if (!r.ok)
        ctx.addIssue({ code: "custom", path: ["code"], message: describeRuleCodeFailure(r.failure) });
    }) as unknown as z.ZodType<GeneratedRuleParams>;

  const create = (p: GeneratedRuleParams): Rule => {
    const r = prepare(p.code, p.sha256);
    if (!r.ok) throw hookFailed(r.failure);
    const { code, loaded, directives } = r.prepared;
    const config = (p.config ?? {}) as JsonObject;
    const stateData = (state: RuleState): JsonObject => ({
      world: state.world as JsonObject,
      now: state.now,
      step: state.step,
      params: config,
      history: state.history as unknown as JsonValue,
      ...(state.shadow ? { shadow: state.shadow as unknown as JsonValue } : {}),
    });
    const call = (hook: RuleHookName, args: JsonValue[], original: JsonValue): JsonValue => {
      const out = sandbox.call(code, hook, args);
      if (!out.ok) throw hookFailed(out.failure);
      const checked = checkHookOutput(hook, out.value, original);
      if (!checked.ok) throw hookFailed(ruleCodeFailure("bad_return", hook, checked.message, code.sha256));
      return checked.value;
    };
    const has = (h: RuleHookName) => loaded.hooks.includes(h);
    const rule: Rule = {
      id: GENERATED_RULE_ID,
      params: p,
      ...(directives ? { directives } : {}),
      ...(has("filterAction")
        ? {
            filterAction: (action: Readonly<Action>, state: RuleState) => {
              const a = action as unknown as JsonValue;
              return call("filterAction", [a, stateData(state)], a) as unknown as Action | Blocked;
            },
          }
        : {}),
      ...(has("modifyTransition")
        ? {
            modifyTransition: (action: Readonly<Action>, result: Readonly<StepResult>, state: RuleState) => {
              // the code never sees the verdict
              const { verdict: _verdict, ...info } = result.info;
              const visible = { ...result, info } as unknown as JsonValue;
              const out = call(
                "modifyTransition",
                [action as unknown as JsonValue, visible, stateData(state)],
                visible,
              ) as unknown as StepResult;
              return { ...out, reward: result.reward, terminated: result.terminated };
            },
          }
        : {}),
      ...(has("filterObservation")
        ? {
            filterObservation: (observation: Readonly<Observation>, state: RuleState) => {
              const o = observation as unknown as JsonValue;
              return call("filterObservation", [o, stateData(state)], o) as unknown as Observation;
            },
          }
        : {}),
    };
    return rule;
  };

  return {
    id: GENERATED_RULE_ID,
    description:
      "generated rule code (TypeScript, by sha256) run in a sandbox with a time and memory limit per hook call",
    params,
    create,
    prepare,
    sandbox,
  };
}
