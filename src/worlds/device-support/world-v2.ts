import type { Action, EnvSpec, StepResult, Task, ToolDescriptor } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import { constantArray } from "../../core/hash.ts";
import type { JsonValue } from "../../core/json.ts";
import { toolDescriptor } from "../../core/tool.ts";
import type { ToolWorldDefinition } from "../../core/tool-world.ts";
import type { CustomerSimulator, CustomerTurn } from "../shared/customer-simulator.ts";
import { AdmissibleToolWorld, serviceFaultDispatch } from "../shared/index.ts";
import { DEVICE_SUPPORT_V2_ADMISSIBLE } from "./admissible-v2.ts";
import {
  type ConversationParams,
  type DeviceSupportV2State,
  VERIFIER_ID_V2,
  WORLD_ID_V2,
} from "./conversation-state.ts";
import { TOOLS_V2 } from "./conversation-tools.ts";
import { verifyDeviceSupportV2 } from "./conversation-verifier.ts";
import type { DeviceSupportState } from "./state.ts";
import { RATE_LIMITED_TOOLS } from "./tools.ts";
import { initialState as initialStateV1, DEFINITION as V1 } from "./world.ts";

export const DEVICE_SUPPORT_V2_TOOLS: readonly ToolDescriptor[] = constantArray(TOOLS_V2.map(toolDescriptor));

export const DEVICE_SUPPORT_V2_SPEC: EnvSpec = {
  id: WORLD_ID_V2,
  world: WORLD_ID_V2,
  tools: DEVICE_SUPPORT_V2_TOOLS as ToolDescriptor[],
  terminalTools: ["close_case"],
  verifier: VERIFIER_ID_V2,
};

const conversationOf = (s: DeviceSupportV2State) =>
  (s.task.params as unknown as { conversation: ConversationParams }).conversation;

/** The start state of a device-support@2 episode: @1's, the conversation, and any earlier replacement. */
export function initialStateV2(task: Task, seed: number, episode: string): DeviceSupportV2State {
  const s = initialStateV1(task, seed, episode, WORLD_ID_V2) as unknown as DeviceSupportV2State;
  const conv = (task.params as unknown as { conversation: ConversationParams }).conversation;
  const caseId = String(task.params.case_id);
  s.counters.address = 0;
  s.entities.thread = [];
  if (conv.opening) {
    s.entities.thread.push({
      message_id: "MSG-0",
      case_id: caseId,
      from: "customer",
      text: conv.opening,
      t: 0,
      visible: true,
      acts: { stated: { wants: conv.customer.facts.wants }, confirmed: {}, refused: {} },
      by: "opening",
    });
  }
  if (conv.existing) {
    const { receipt_id, ...replacement } = conv.existing;
    s.entities.replacements.push(replacement);
    s.entities.receipts.push({
      receipt_id,
      request_id: replacement.request_id,
      idempotency_key: replacement.idempotency_key,
      visible_at: replacement.committed_at,
      visible: true,
    });
  }
  return s;
}

function definitionV2(): ToolWorldDefinition<DeviceSupportV2State> {
  const v1 = V1 as unknown as ToolWorldDefinition<DeviceSupportV2State>;
  return {
    spec: DEVICE_SUPPORT_V2_SPEC,
    tools: TOOLS_V2,
    rules: serviceFaultDispatch(RATE_LIMITED_TOOLS),
    initialState: initialStateV2,
    startJobs(s) {
      const jobs = v1.startJobs?.(s) ?? [];
      const at = conversationOf(s).withdrawAt;
      if (at !== undefined) jobs.push({ due: at, kind: "customer.withdraw", data: {} });
      return jobs;
    },
    taskContext: v1.taskContext,
    runJob(s, job, rng) {
      if (job.kind === "customer.visible") {
        const m = s.entities.thread.find(
          (x) => x.message_id === (job.data as { message_id?: string }).message_id,
        );
        if (m) m.visible = true;
      } else if (job.kind === "customer.withdraw") {
        s.entities.thread.push({
          message_id: `MSG-W${s.entities.thread.length}`,
          case_id: String(s.task.params.case_id),
          from: "customer",
          text: "Please cancel my replacement request - I don't need it anymore.",
          t: s.now,
          visible: true,
          acts: { stated: { wants: "no" }, confirmed: {}, refused: {} },
          by: "withdrawal",
        });
      } else v1.runJob(s, job, rng);
    },
    verify: (s, effects) =>
      verifyDeviceSupportV2({ task: s.task, entities: s.entities, effects, trace: s.trace }),
  };
}

/**
 * device-support@2: device-support@1 plus a simulated customer. `send_message` to the case's customer
 * asks the task's simulator (scripted personas, or an injected one such as an LLM) for a reply before
 * the call runs; the tool then records the reply, hidden until it arrives in virtual time. What the
 * customer said is saved with the state, so a restored episode never asks the simulator again. It
 * declares admissible actions (`DEVICE_SUPPORT_V2_ADMISSIBLE`).
 */
export class DeviceSupportWorldV2 extends AdmissibleToolWorld<DeviceSupportV2State> {
  constructor(private readonly simulators: ReadonlyMap<string, CustomerSimulator>) {
    super(definitionV2(), DEVICE_SUPPORT_V2_ADMISSIBLE);
  }

  static fromState(
    saved: JsonValue,
    simulators: ReadonlyMap<string, CustomerSimulator>,
  ): DeviceSupportWorldV2 {
    return new DeviceSupportWorldV2(simulators).restore(saved);
  }

  override async step(action: Action): Promise<StepResult> {
    const s = this.state;
    const turn = s.ended ? undefined : this.turnFor(action);
    if (turn) {
      const simulator = this.simulators.get(turn.profile.simulator);
      if (!simulator)
        throw configError("unknown_param", `no customer simulator "${turn.profile.simulator}" in this world`);
      const reply = await simulator.reply(turn);
      s.entities.outbox = { ...reply, by: simulator.id };
    }
    try {
      return await super.step(action);
    } finally {
      delete s.entities.outbox;
    }
  }

  /** The customer's turn for a well-formed `send_message` on the task's case; otherwise none. */
  private turnFor(action: Action): CustomerTurn | undefined {
    const s = this.state;
    const args = action?.args as { case_id?: unknown; text?: unknown } | undefined;
    if (action?.tool !== "send_message" || !args) return undefined;
    const caseId = String(s.task.params.case_id);
    if (args.case_id !== caseId || typeof args.text !== "string" || !args.text || args.text.length > 4000)
      return undefined;
    const thread = s.entities.thread
      .filter((m) => m.case_id === caseId)
      .map((m) => ({ from: m.from, text: m.text, t: m.t }));
    return {
      profile: conversationOf(s).customer,
      thread,
      message: { from: "agent", text: args.text, t: s.now },
      turn: thread.filter((m) => m.from === "agent").length,
    };
  }
}

export type { DeviceSupportState };
