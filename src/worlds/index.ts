/**
 * The built-in worlds as plain values and factories. `code-repair@1` takes the sandbox that runs its
 * workspace code, so the list of built-in worlds with that sandbox injected (`BUILTIN_WORLDS`) is the
 * gym's: `proving-ground/gym` and `proving-ground` export it.
 */
import type { Handoff } from "../harness/link-layer.ts";
import { replacementOrderHandoff } from "./support-orders/index.ts";

/** Hand-offs between built-in worlds, for Link layers. */
export const BUILTIN_HANDOFFS: readonly Handoff[] = [replacementOrderHandoff];

export { type CodeSandbox, codeRepairWorld } from "./code-repair/index.ts";
export {
  type ConversationWorldDefinition,
  type DeviceSupportV2Options,
  deviceSupport,
  deviceSupportV2,
  deviceSupportV2World,
} from "./device-support/index.ts";
export { orderOps } from "./order-ops/index.ts";
export {
  defineToolWorld,
  type SimpleWorldContext,
  type SimpleWorldOptions,
  type SimpleWorldState,
} from "./shared/define-tool-world.ts";
export { type Script, scriptPolicy } from "./shared/script-policy.ts";
export { replacementOrderHandoff, supportOrders } from "./support-orders/index.ts";
