import { Registry } from "../core/registry.ts";
import type { Handoff } from "../harness/link-layer.ts";
import { deviceSupport } from "./device-support/index.ts";
import { DeviceSupportWorld } from "./device-support/world.ts";
import { orderOps } from "./order-ops/index.ts";
import { OrderOpsWorld } from "./order-ops/world.ts";
import { replacementOrderHandoff, supportOrders } from "./support-orders/index.ts";
import { SupportOrdersWorld } from "./support-orders/world.ts";

/** Registers the worlds that ship with Proving Ground into a registry. */
export function registerBuiltinWorlds(registry: Registry): Registry {
  registry.registerWorld(deviceSupport, (state) => DeviceSupportWorld.fromState(state));
  registry.registerWorld(orderOps, (state) => OrderOpsWorld.fromState(state));
  registry.registerWorld(supportOrders, (state) => SupportOrdersWorld.fromState(state));
  return registry;
}

/** A registry with every built-in world. */
export function defaultRegistry(): Registry {
  return registerBuiltinWorlds(new Registry());
}

/** Hand-offs between built-in worlds, for Link layers (`new Harness(registry, {handoffs})`). */
export const BUILTIN_HANDOFFS: readonly Handoff[] = [replacementOrderHandoff];

export { deviceSupport, orderOps, supportOrders };
