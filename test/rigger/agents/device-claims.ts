// Planted weakness (device-support@1): on about half the cases, a replacement whose reply was lost is
// closed as created without ever seeing the request.
import { DEVICE_SUPPORT_POLICIES } from "../../../src/worlds/device-support/policies.ts";
import { mixedPolicy } from "./mixed-policy.ts";

export default mixedPolicy(
  "device-claims",
  DEVICE_SUPPORT_POLICIES["claims-success"],
  DEVICE_SUPPORT_POLICIES.cautious,
  "case_id",
);
