import type { Agent, Environment } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import type { CheckPreset } from "./presets.ts";
import type { CheckKind } from "./report.ts";

/**
 * What `checkEnvironment` checks: a world definition (its own instances), or an environment factory
 * — a harnessed variant (`() => gym.harness.build(variant)`), a remote world
 * (`(await connectRemote(url)).environment`), any runner `EnvironmentFactory` — whose tasks and
 * policies come from `options.world`.
 */
export type CheckTarget = WorldDefinition | EnvironmentFactory;

/** A bad policy and what must catch it: the families it fails, and the violation codes (any one) it fails with. */
export interface ExpectedFailure {
  families: string[];
  /** Empty: failing is enough. */
  codes: string[];
}

/**
 * Restoring a saved environment: a `Registry` (the environment is saved as the harness saves it — a
 * stack as `harness.stack@1`, a world by its id — and restored through the registered factories), or
 * a function of exactly what `env.saveState()` returned.
 */
export type RestoreWith = Registry | ((state: JsonValue) => Environment);

export interface CheckOptions {
  /**
   * The world whose task generator, families and scripted policies the checks use. Required when the
   * target is a factory (the base world of the variant, the world the remote server serves); it must
   * be the target itself when the target is a world.
   */
  world?: WorldDefinition;
  /**
   * How to restore saved states. Default: the target world's `restore`; none for a factory (a world's
   * own `restore` would drop a variant's layers), which makes the save/restore checks not checkable.
   */
  restore?: RestoreWith;
  /** Families to check (default: every family of the world). */
  families?: string[];
  /** Difficulties to cover (default: the preset's; conformance: every difficulty each family declares). */
  difficulties?: number[];
  /** Seeds per family × difficulty (default: the preset's, [0, 1, 2]). */
  seeds?: number[];
  /** Scripted policies added to (or replacing, by name) the world's own. */
  policies?: Record<string, Agent>;
  /** The policy that must pass every task (default: the world's `knownGood`). */
  knownGood?: string;
  /** Policies that must fail, and how (default: the world's `expectedFailures`; none under the audit preset). */
  expectedFailures?: Record<string, ExpectedFailure>;
  /** Malformed argument objects sent to each tool (default: the preset's; conformance 1000, audit 200). */
  fuzzPerTool?: number;
  /** Step budget of every episode (default: the preset's; conformance 200, audit 100). */
  maxSteps?: number;
  /**
   * Wall-clock budget of each policy run, in ms (default: none; the checker reads no clock, and a
   * policy run only ends by the world or the step budget). Set it for a remote world that may hang.
   */
  wallTimeoutMs?: number;
  /** The world schedules background jobs: fail unless some mid-episode state had jobs pending (default false). */
  expectBackgroundJobs?: boolean;
  /**
   * Largest action (as JSON, in bytes) to send: malformed cases and random-walk steps past it are not
   * sent. For a transport with a message limit (a `proving serve` server: `--max-body-bytes`, 1 MiB by
   * default, less the message envelope). Default: no limit.
   */
  maxActionBytes?: number;
  /**
   * Longest string (a value or a key, as JSON text: escapes count) an action may hold, and deepest
   * nesting of its arguments: cases past them are not sent either (a `proving serve` server refuses
   * longer strings and deeper JSON before any world sees them). Default: no limit.
   */
  maxStringLength?: number;
  maxDepth?: number;
  /**
   * Which error codes answer a bad call in the `bad-input` check. `"ours"` (default): the Environment
   * contract's `invalid_argument`, not retryable, with a message naming the field. `"any"`: an
   * environment whose error codes are its own (a foreign OpenEnv server, whose MCP tools answer a
   * pydantic validation failure as `execution_error`): any coded error answer counts, and the check's
   * details count the codes it got.
   */
  badCallCodes?: "ours" | "any";
  /**
   * Called once for each environment the checker built itself, when it is done with it (a remote
   * environment holds a server session until its episode ends: `(env) => env.close()`).
   */
  dispose?: (env: Environment) => void | Promise<void>;
  /**
   * The preset whose checks, agents and defaults apply (`PRESETS`): `conformance` (default: every
   * conformance check, the world's known-good and known-bad policies) or `audit` (the audit's checks:
   * the known-good policy and the reference agents, its own seeds, difficulties and budgets). The
   * options given here override the preset's.
   */
  preset?: CheckPreset;
  /**
   * The kinds of checks to run (default: the preset's; the reference agents' checks — `cheating`,
   * `verdicts`, `learning-signal`, `hidden` — are the audit's).
   */
  kinds?: readonly CheckKind[];
  /** Runs only the checks whose name this accepts (default: all of the selected kinds). */
  only?: (name: string) => boolean;
  /** Random-agent episodes per task in the `cheating` check (default: the audit preset's, 2). */
  randomEpisodes?: number;
  /** Seeds of the middling agent per family × difficulty in the `learning-signal` check (default: the audit preset's, 8). */
  signalSeeds?: number;
}
