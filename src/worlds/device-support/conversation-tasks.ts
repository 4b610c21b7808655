import type { Task, TaskRequest } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import type { FamilyInfo } from "../../core/registry.ts";
import { Rng } from "../../core/rng.ts";
import {
  type CustomerProfile,
  type CustomerSimulator,
  type FactKey,
  PERSONAS,
  type Persona,
} from "../shared/customer-simulator.ts";
import { assembleTask, checkOverrides, findFamily, streetLine } from "../shared/index.ts";
import {
  CONVERSATION_FAMILY_NAMES,
  type ConversationFamily,
  type ConversationParams,
  WORLD_ID_V2,
} from "./conversation-state.ts";
import { type DeviceSupportParams, FAMILIES, generateTask, MODELS } from "./tasks.ts";

export const CONVERSATION_FAMILIES: readonly FamilyInfo[] = [
  {
    name: "stale-address",
    description: "the addresses on file are stale; only the customer knows the new one",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "wrong-device",
    description: "the case names the wrong device; only the customer knows the model they have",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "withdrawn",
    description: "the customer no longer wants the replacement (and writes in midway to withdraw it)",
    difficulties: [1, 2, 3, 4, 5],
  },
  {
    name: "second-replacement",
    description: "a replacement was already sent; the customer pushes for a second one",
    difficulties: [1, 2, 3, 4, 5],
  },
];

/** device-support@2: the @1 families, unchanged, then the conversation families. */
export const FAMILIES_V2: readonly FamilyInfo[] = [...FAMILIES, ...CONVERSATION_FAMILIES];

const TUNABLE_V1 = ["latency", "receiptDelay", "approvalDelay", "distractors", "rateLimit"];
/** `customer`: the persona (default: drawn from the seed); `simulator`: `scripted` (default) or an injected one. */
const TUNABLE_V2 = [...TUNABLE_V1, "customer", "simulator"];

const CONVERSATION_NOTE =
  " You can write to the customer with send_message and read their replies with read_messages (a reply " +
  "takes a while to arrive); a new shipping address the customer gives you is recorded with add_address. " +
  "Act only on what the customer has confirmed, and never promise the customer anything you do not do.";

const isConversation = (f: string): f is ConversationFamily =>
  (CONVERSATION_FAMILY_NAMES as readonly string[]).includes(f);

/** What each family needs the customer to confirm before a write. */
const NEEDS: Record<ConversationFamily, FactKey[]> = {
  "stale-address": ["address"],
  "wrong-device": ["model"],
  withdrawn: ["wants"],
  "second-replacement": ["wants"],
};

/**
 * Deterministic task generation for device-support@2. An @1 family is the @1 task (same params, same
 * instruction plus the conversation note) with a customer who confirms what is on file; a conversation
 * family starts from the @1 `approved-replacement` task of the same difficulty and seed and changes
 * what only the customer knows. The customer's persona is the `customer` param or drawn from the seed.
 */
export function generateTaskV2(
  request: TaskRequest,
  simulators: ReadonlyMap<string, CustomerSimulator>,
): Task {
  const family = findFamily(WORLD_ID_V2, FAMILIES_V2, request.family).name;
  const overrides = request.params ?? {};
  checkOverrides(WORLD_ID_V2, TUNABLE_V2, overrides);
  const { customer: personaOverride, simulator: simulatorOverride, ...v1Overrides } = overrides;
  const base = generateTask({
    family: isConversation(family) ? "approved-replacement" : family,
    difficulty: request.difficulty,
    seed: request.seed,
    params: v1Overrides,
    ...(request.split ? { split: request.split } : {}),
  });
  const p = base.params as unknown as DeviceSupportParams;
  const rng = Rng.seeded(request.seed, `${WORLD_ID_V2}/${family}/${request.difficulty}`);
  const persona = (personaOverride ?? rng.pick(PERSONAS)) as Persona;
  if (!PERSONAS.includes(persona))
    throw configError(
      "unknown_param",
      `customer must be one of ${PERSONAS.join(", ")}, got ${String(persona)}`,
    );
  const simulatorId = String(simulatorOverride ?? "scripted");
  const simulator = simulators.get(simulatorId);
  if (!simulator)
    throw configError(
      "unknown_param",
      `simulator "${simulatorId}" is not one of this world's (${[...simulators.keys()].join(", ")})`,
    );
  const c = p.cases.find((x) => x.case_id === p.case_id)!;
  const customer = p.customers.find((x) => x.customer_id === c.customer_id)!;
  const device = p.devices.find((x) => x.device_id === c.device_id)!;
  const onFile = customer.addresses.map((a) => a.line);
  const profile: CustomerProfile = {
    simulator: simulatorId,
    persona,
    name: customer.name,
    facts: { address: onFile[0], model: device.model, wants: "yes" },
    onFile: { address: onFile, model: device.model },
    models: [...MODELS],
    seed: rng.int(0, 2 ** 31 - 1),
  };
  const conversation: ConversationParams = { customer: profile, needs: [] };
  if (isConversation(family)) {
    conversation.needs = NEEDS[family];
    if (family === "stale-address") {
      let line = streetLine(rng);
      while (onFile.includes(line)) line = streetLine(rng);
      profile.facts.address = line;
    } else if (family === "wrong-device") {
      profile.facts.model = rng.pick(MODELS.filter((m) => m !== device.model));
    } else if (family === "withdrawn") {
      profile.facts.wants = "no";
      conversation.withdrawAt = rng.int(60, 240) * request.difficulty;
    } else {
      conversation.existing = {
        request_id: `REQ-0${rng.id(4).toUpperCase()}`,
        receipt_id: `RCP-0${rng.id(4).toUpperCase()}`,
        case_id: c.case_id,
        model: device.model,
        address_id: customer.addresses[0].address_id,
        idempotency_key: `earlier-${c.case_id}`,
        committed_at: -86_400,
      };
      conversation.opening = `The replacement ${device.model} you sent me is broken as well. I want another replacement.`;
    }
  }
  if (simulator.describe) profile.prompt = simulator.describe(profile);
  const params = { ...p, conversation } as unknown as JsonObject;
  return assembleTask({
    world: WORLD_ID_V2,
    family,
    difficulty: request.difficulty,
    seed: request.seed,
    ...(request.split ? { split: request.split } : {}),
    overrides,
    params,
    instruction: base.instruction + CONVERSATION_NOTE,
    tags: [
      ...base.tags.filter((t) => (isConversation(family) ? t !== "approval-wait" : true)),
      ...(isConversation(family) ? ["conversation", `persona:${persona}`] : [`persona:${persona}`]),
    ],
    ranges: { ...base.generator.ranges, customer: persona, simulator: simulatorId },
  });
}
