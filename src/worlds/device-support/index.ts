import type { WorldDefinition } from "../../core/registry.ts";
import { DEVICE_SUPPORT_POLICIES, EXPECTED_FAILURES } from "./policies.ts";
import { VERIFIER_ID, WORLD_ID } from "./state.ts";
import { FAMILIES, generateTask } from "./tasks.ts";
import { DeviceSupportWorld } from "./world.ts";

export const deviceSupport: WorldDefinition = {
  id: WORLD_ID,
  description: "Device replacements under approval, with lost replies, delayed receipts and outages.",
  verifier: VERIFIER_ID,
  families: [...FAMILIES],
  generateTask,
  create: () => new DeviceSupportWorld(),
  restore: (state) => DeviceSupportWorld.fromState(state),
  policies: DEVICE_SUPPORT_POLICIES,
  knownGood: "cautious",
  expectedFailures: EXPECTED_FAILURES,
  // what the world has planned (approval decisions, the first create's fault, receipt delays, outages):
  // the audit's hidden check looks for these values, in any encoding, in every observation
  hiddenParams: ["decisions", "firstCreate", "receiptDelay", "transientUnavailable"],
};

export { CONVERSATION_EXPECTED_FAILURES, DEVICE_SUPPORT_V2_POLICIES } from "./conversation-policies.ts";
export {
  CONVERSATION_FAMILY_NAMES,
  type ConversationParams,
  type DeviceSupportV2State,
  type ThreadEntry,
  VERIFIER_ID_V2 as DEVICE_SUPPORT_V2_VERIFIER,
  WORLD_ID_V2 as DEVICE_SUPPORT_V2_ID,
} from "./conversation-state.ts";
export {
  CONVERSATION_FAMILIES,
  FAMILIES_V2 as DEVICE_SUPPORT_V2_FAMILIES,
  generateTaskV2,
} from "./conversation-tasks.ts";
export { verifyDeviceSupportV2 } from "./conversation-verifier.ts";
export {
  type ConversationWorldDefinition,
  type DeviceSupportV2Options,
  deviceSupportV2,
  deviceSupportV2World,
} from "./conversation-world.ts";
export { DEVICE_SUPPORT_POLICIES, EXPECTED_FAILURES } from "./policies.ts";
export { type PromiseKind, promisesIn } from "./promises.ts";
export type { DeviceSupportState, TraceEntry } from "./state.ts";
export { VERIFIER_ID as DEVICE_SUPPORT_VERIFIER, WORLD_ID as DEVICE_SUPPORT_ID } from "./state.ts";
export type { DeviceSupportParams } from "./tasks.ts";
export { FAMILIES as DEVICE_SUPPORT_FAMILIES, generateTask as generateDeviceSupportTask } from "./tasks.ts";
export { verifyDeviceSupport } from "./verifier.ts";
export { DEVICE_SUPPORT_TOOLS, DeviceSupportWorld, initialState } from "./world.ts";
export { DEVICE_SUPPORT_V2_TOOLS, DeviceSupportWorldV2 } from "./world-v2.ts";
