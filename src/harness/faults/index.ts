import type { RuleDefinition } from "../rule.ts";
import { delayJob } from "./delay-job.ts";
import { disableTool } from "./disable-tool.ts";
import { hideField } from "./hide-field.ts";
import { latency } from "./latency.ts";
import { loseReplyAfterCommit } from "./lose-reply-after-commit.ts";
import { rateLimit } from "./rate-limit.ts";
import { staleRead } from "./stale-read.ts";
import { timeoutBeforeCommit } from "./timeout-before-commit.ts";
import { unavailable } from "./unavailable.ts";

/** The fault library: every fault is a rule with params. */
// biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
export const FAULT_RULES: readonly RuleDefinition<any>[] = [
  loseReplyAfterCommit,
  timeoutBeforeCommit,
  rateLimit,
  unavailable,
  staleRead,
  delayJob,
  hideField,
  disableTool,
  latency,
];

export { removePath } from "./hide-field.ts";
export {
  delayJob,
  disableTool,
  hideField,
  latency,
  loseReplyAfterCommit,
  rateLimit,
  staleRead,
  timeoutBeforeCommit,
  unavailable,
};
