import type { WorldDefinition } from "../../core/registry.ts";
import type { CustomerSimulator } from "../shared/customer-simulator.ts";
import { scriptedCustomer } from "../shared/scripted-customer.ts";
import { CONVERSATION_EXPECTED_FAILURES, DEVICE_SUPPORT_V2_POLICIES } from "./conversation-policies.ts";
import { CONVERSATION_FAMILY_NAMES, VERIFIER_ID_V2, WORLD_ID_V2 } from "./conversation-state.ts";
import { FAMILIES_V2, generateTaskV2 } from "./conversation-tasks.ts";
import { DeviceSupportWorldV2 } from "./world-v2.ts";

/** A world definition that plays customers: its simulators (for the simulator audit). */
export interface ConversationWorldDefinition extends WorldDefinition {
  customerSimulators: readonly CustomerSimulator[];
  /** The families that need the conversation (the simulator audit's weak-agent probe plays them). */
  conversationFamilies: readonly string[];
}

export interface DeviceSupportV2Options {
  /** Simulators besides the scripted personas (`scripted`), e.g. an LLM one (`llmCustomer`, src/customers). */
  simulators?: readonly CustomerSimulator[];
}

/**
 * `device-support@2`: every device-support@1 family unchanged, plus the conversation families
 * (stale-address, wrong-device, withdrawn, second-replacement) with a simulated customer. A task's
 * `customer` param picks the persona, `simulator` the simulator (default `scripted`: pure, seeded).
 */
export function deviceSupportV2World(options: DeviceSupportV2Options = {}): ConversationWorldDefinition {
  const simulators = new Map<string, CustomerSimulator>([[scriptedCustomer.id, scriptedCustomer]]);
  for (const s of options.simulators ?? []) simulators.set(s.id, s);
  return {
    id: WORLD_ID_V2,
    description:
      "Device replacements under approval, with a simulated customer who knows what the records do not.",
    verifier: VERIFIER_ID_V2,
    families: [...FAMILIES_V2],
    generateTask: (request) => generateTaskV2(request, simulators),
    create: () => new DeviceSupportWorldV2(simulators),
    restore: (state) => DeviceSupportWorldV2.fromState(state, simulators),
    policies: DEVICE_SUPPORT_V2_POLICIES,
    knownGood: "asks-first",
    expectedFailures: CONVERSATION_EXPECTED_FAILURES,
    customerSimulators: [...simulators.values()],
    conversationFamilies: [...CONVERSATION_FAMILY_NAMES],
  };
}

/** device-support@2 with the scripted personas only (the built-in world). */
export const deviceSupportV2: ConversationWorldDefinition = deviceSupportV2World();
