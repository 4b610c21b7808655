import type { WorldDefinition } from "../core/registry.ts";
import type { Handoff } from "../harness/link-layer.ts";
import { isolateSandbox } from "../sandbox/isolate-sandbox.ts";
import { codeRepairWorld } from "./code-repair/index.ts";
import { deviceSupport, deviceSupportV2 } from "./device-support/index.ts";
import { orderOps } from "./order-ops/index.ts";
import { replacementOrderHandoff, supportOrders } from "./support-orders/index.ts";

/** The worlds that ship with Proving Ground (plain values; `defaultGym()` wires them). */
export const BUILTIN_WORLDS: readonly WorldDefinition[] = [
  deviceSupport,
  // device-support@1 plus a simulated customer and the conversation families (@1 stays for its records)
  deviceSupportV2,
  orderOps,
  supportOrders,
  // its workspace code runs in isolated-vm (the sandbox is injected; the world itself stays pure)
  codeRepairWorld(isolateSandbox()),
];

/** Hand-offs between built-in worlds, for Link layers. */
export const BUILTIN_HANDOFFS: readonly Handoff[] = [replacementOrderHandoff];

export { type CodeSandbox, codeRepairWorld } from "./code-repair/index.ts";
export {
  type ConversationWorldDefinition,
  type DeviceSupportV2Options,
  deviceSupportV2World,
} from "./device-support/index.ts";
export {
  defineToolWorld,
  type SimpleWorldContext,
  type SimpleWorldOptions,
  type SimpleWorldState,
} from "./shared/define-tool-world.ts";
export { type Script, scriptPolicy } from "./shared/script-policy.ts";
export { deviceSupport, deviceSupportV2, orderOps, replacementOrderHandoff, supportOrders };
