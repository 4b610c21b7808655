// Planted weakness (device-support@1): on about half the cases, a replacement whose reply was lost is
// retried under a fresh idempotency key instead of being looked up by its key.
import { DEVICE_SUPPORT_POLICIES } from "../../../src/worlds/device-support/policies.ts";
import { mixedPolicy } from "./mixed-policy.ts";

export default mixedPolicy(
  "device-rekey",
  DEVICE_SUPPORT_POLICIES["new-key-retry"],
  DEVICE_SUPPORT_POLICIES.cautious,
  "case_id",
);
