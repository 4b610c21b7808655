import type { JsonObject } from "../../core/json.ts";

/** What a customer can be asked about: where to ship, which device they have, whether they still want it. */
export type FactKey = "address" | "model" | "wants";
export const FACT_KEYS: readonly FactKey[] = ["address", "model", "wants"];

/** A customer's own facts (what a real customer knows), as text; `wants` is `"yes"` or `"no"`. */
export type CustomerFacts = Record<FactKey, string>;

/** The scripted personas that ship with the gym (a simulator may add its own). */
export const PERSONAS = ["cooperative", "terse", "mistaken", "impatient", "adversarial"] as const;
export type Persona = (typeof PERSONAS)[number];

/**
 * What the simulated customer is: their persona, their own facts and what they would say first.
 * Never the task's hidden plan (family, expected resolution, approval decisions): only what a real
 * customer knows about themselves.
 */
export interface CustomerProfile {
  /** The simulator that plays the customer: `scripted` or the id of an injected one (e.g. `llm`). */
  simulator: string;
  persona: Persona;
  name: string;
  facts: CustomerFacts;
  /**
   * Values the customer might plausibly (mistakenly) name for a fact: the addresses on file, the
   * device model on the case. The persona `mistaken` names these first.
   */
  onFile: { address: string[]; model: string };
  /** The device models any customer might name (to recognise a read-back). */
  models: string[];
  /** A seed for the persona's own choices (reply delays, wording). */
  seed: number;
  /** What the simulator's own prompt was, when it has one (an LLM simulator); recorded in the task. */
  prompt?: string;
}

/** What the agent's message asks for and proposes, as the customer reads it. */
export interface MessageIntent {
  asks: FactKey[];
  /** Values the agent read back or proposed (e.g. "ship to 12 Elm St, right?"), by fact. */
  proposes: Partial<Record<FactKey, string>>;
  /** The agent refuses something the customer asked for ("we cannot send another replacement"). */
  refuses: boolean;
}

/** One entry of the conversation as a simulator sees it. */
export interface ThreadMessage {
  from: "agent" | "customer";
  text: string;
  t: number;
}

/** What the customer's reply says, in facts: the verifier and the simulator audit read these. */
export interface ReplyActs {
  /** Facts the reply states (asked for or not). */
  stated: Partial<Record<FactKey, string>>;
  /** Read-back values the reply agrees to. */
  confirmed: Partial<Record<FactKey, string>>;
  /** Read-back values the reply rejects. */
  refused: Partial<Record<FactKey, string>>;
}

export interface CustomerReply {
  text: string;
  /** Virtual seconds until the reply arrives (>= 1). */
  delay: number;
  acts: ReplyActs;
}

/** A customer's turn: the profile, the conversation so far, and the agent's new message. */
export interface CustomerTurn {
  profile: CustomerProfile;
  /** Earlier messages, oldest first (the new agent message is not among them). */
  thread: ThreadMessage[];
  message: ThreadMessage;
  /** Index of this agent message in the conversation (0 for the first). */
  turn: number;
}

/**
 * A simulated customer, behind one interface for every kind: scripted personas (pure, seeded) and an
 * LLM-driven one (network IO, so it lives outside the pure world and is injected). `reply` must depend
 * only on the turn (and, for an LLM, the model's answer): the world records what it said, so a saved
 * episode replays without calling it again.
 */
export interface CustomerSimulator {
  /** `scripted`, `llm`, or your own; a task's `customer.simulator` names it. */
  readonly id: string;
  reply(turn: CustomerTurn): CustomerReply | Promise<CustomerReply>;
  /** The prompt (or description) the simulator plays the profile with, recorded in the task. */
  describe?(profile: CustomerProfile): string;
}

/** An empty set of acts. */
export const noActs = (): ReplyActs => ({ stated: {}, confirmed: {}, refused: {} });

/** The profile as plain JSON (for task params). */
export const profileJson = (p: CustomerProfile): JsonObject => JSON.parse(JSON.stringify(p)) as JsonObject;
