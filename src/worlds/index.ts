import { Registry } from "../core/registry.ts";
import { deviceSupport } from "./device-support/index.ts";
import { DeviceSupportWorld } from "./device-support/world.ts";

/** Registers the worlds that ship with Proving Ground into a registry. */
export function registerBuiltinWorlds(registry: Registry): Registry {
  registry.registerWorld(deviceSupport, (state) => DeviceSupportWorld.fromState(state));
  return registry;
}

/** A registry with every built-in world. */
export function defaultRegistry(): Registry {
  return registerBuiltinWorlds(new Registry());
}

export { deviceSupport };
