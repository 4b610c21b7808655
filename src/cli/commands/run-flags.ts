import type { BudgetFlags } from "../agent-store-options.ts";

/** The flags of `proving run`, as commander parses them. */
export interface RunFlags extends BudgetFlags {
  agent?: string[];
  world?: string[];
  family?: string[];
  difficulty?: number[];
  trials?: number;
  seed?: number;
  repeats?: number;
  concurrency?: number;
  maxTokens?: number;
  maxCostUsd?: number;
  store?: string;
  id?: string;
  json?: boolean;
  progress?: boolean;
  /** HTML report path; `false` with --no-report. */
  report?: string | boolean;
  reuseEnvs?: boolean;
  /** URL of a `proving serve` (OpenEnv-style) server whose world the trials play. */
  remote?: string;
  /** Harness variants: JSON text or a JSON/YAML file (a variant, a list, or `{variants: [...]}`). */
  variant?: string[];
  /** Run one split of a split file (`--splits FILE`): regression, dynamic or heldout. */
  split?: string;
  splits?: string;
  /** Redis URL: enqueue the trials for `proving worker`s instead of running them here. */
  queue?: string;
  /** With --queue: return once the trials are enqueued. */
  detach?: boolean;
  /** With --queue: attempts per trial before it is recorded as infra_error. */
  attempts?: number;
  /** Take over the experiment's lease from a process that died. */
  force?: boolean;
  /** A saved learner policy (file, or stored hash / prefix) to play frozen: the run's agent. */
  policy?: string;
}
