import { gaveUp } from "./gave-up.ts";
import { ignoredError } from "./ignored-error.ts";
import { linkDataLoss } from "./link-data-loss.ts";
import type { PatternDetector } from "./pattern-detector.ts";
import { retryNewKey } from "./retry-new-key.ts";
import { unobservedClaim } from "./unobserved-claim.ts";
import { waitLoop } from "./wait-loop.ts";
import { writeBeforePrecondition } from "./write-before-precondition.ts";

/** The pattern catalogue, in the order diagnoses are reported on a tie (docs/rigger-patterns.md). */
export const PATTERN_DETECTORS: readonly PatternDetector[] = [
  retryNewKey,
  unobservedClaim,
  writeBeforePrecondition,
  gaveUp,
  waitLoop,
  ignoredError,
  linkDataLoss,
];

export type { DetectContext, PatternDetector, PatternHit } from "./pattern-detector.ts";
export {
  gaveUp,
  ignoredError,
  linkDataLoss,
  retryNewKey,
  unobservedClaim,
  waitLoop,
  writeBeforePrecondition,
};
