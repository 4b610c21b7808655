import type { ToolWorldState } from "../../core/tool-world.ts";
import type { CustomerProfile, CustomerReply, FactKey, ReplyActs } from "../shared/customer-simulator.ts";
import type { Entities, FaultState, Replacement } from "./state.ts";

export const WORLD_ID_V2 = "device-support@2";
export const VERIFIER_ID_V2 = "verify.device-support@2";

/** The task families of device-support@2 that need the conversation with the customer. */
export const CONVERSATION_FAMILY_NAMES = [
  "stale-address",
  "wrong-device",
  "withdrawn",
  "second-replacement",
] as const;
export type ConversationFamily = (typeof CONVERSATION_FAMILY_NAMES)[number];

/** One message of a case's conversation: the agent's, or the customer's (visible from `visible_at`). */
export interface ThreadEntry {
  message_id: string;
  case_id: string;
  from: "agent" | "customer";
  text: string;
  /** When it was sent (agent) or arrives (customer). */
  t: number;
  visible: boolean;
  /** What a customer message says in facts (hidden from the agent; the verifier and the audit read it). */
  acts?: ReplyActs;
  /** The agent message a customer message answers. */
  reply_to?: string;
  /** The simulator that wrote a customer message. */
  by?: string;
}

/** The conversation part of a device-support@2 task (hidden params). */
export interface ConversationParams {
  customer: CustomerProfile;
  /** Facts a write must have confirmed by the customer first (by family: address, model, wants). */
  needs: FactKey[];
  /** A replacement committed before the episode (second-replacement). */
  existing?: Replacement & { receipt_id: string };
  /** A message the customer wrote before the episode, visible at once. */
  opening?: string;
  /** When the customer writes in, unasked, to withdraw the request (withdrawn). */
  withdrawAt?: number;
}

export interface EntitiesV2 extends Entities {
  thread: ThreadEntry[];
  /** The simulated reply to the send_message being dispatched (set by the world around the call). */
  outbox?: CustomerReply & { by: string };
}

export interface DeviceSupportV2State extends ToolWorldState<EntitiesV2, FaultState> {
  counters: { request: number; receipt: number; message: number; ticket: number; address: number };
}
