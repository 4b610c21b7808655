import type { EnvSpec, Task, ToolDescriptor } from "../../core/contracts.ts";
import { constantArray } from "../../core/hash.ts";
import { cloneJson, type JsonValue } from "../../core/json.ts";
import { toolDescriptor } from "../../core/tool.ts";
import { episodeStart, type ToolWorldDefinition } from "../../core/tool-world.ts";
import { AdmissibleToolWorld, serviceFaultDispatch } from "../shared/index.ts";
import { DEVICE_SUPPORT_ADMISSIBLE } from "./admissible.ts";
import { type DeviceSupportState, VERIFIER_ID, WORLD_ID } from "./state.ts";
import type { DeviceSupportParams } from "./tasks.ts";
import { RATE_LIMITED_TOOLS, TOOLS } from "./tools.ts";
import { verifyDeviceSupport } from "./verifier.ts";

/** Constant: every first observation carries it, and hashes copy its canonical JSON instead of walking it. */
export const DEVICE_SUPPORT_TOOLS: readonly ToolDescriptor[] = constantArray(TOOLS.map(toolDescriptor));

export const DEVICE_SUPPORT_SPEC: EnvSpec = {
  id: WORLD_ID,
  world: WORLD_ID,
  tools: DEVICE_SUPPORT_TOOLS as ToolDescriptor[],
  terminalTools: ["close_case"],
  verifier: VERIFIER_ID,
};

const params = (s: DeviceSupportState) => s.task.params as unknown as DeviceSupportParams;

/** Builds the start state of an episode from a task and a seed. Pure. */
export function initialState(
  task: Task,
  seed: number,
  episode: string,
  world = WORLD_ID,
): DeviceSupportState {
  const p = task.params as unknown as DeviceSupportParams;
  return {
    ...episodeStart(world, task, seed, episode, p.latency),
    entities: {
      today: p.today,
      customers: cloneJson(p.customers),
      devices: cloneJson(p.devices),
      cases: cloneJson(p.cases),
      approvals: cloneJson(p.approvals),
      replacements: [],
      receipts: [],
      messages: [],
      escalations: [],
    },
    faults: {
      firstCreate: p.firstCreate,
      receiptDelay: p.receiptDelay,
      unverifiableAfterLoss: p.unverifiable,
      firstCreateDone: false,
      outage: false,
    },
    counters: { request: 0, receipt: 0, message: 0, ticket: 0 },
  };
}

/** The @1 world as a tool-world definition (device-support@2 builds on its jobs and rules). */
export const DEFINITION: ToolWorldDefinition<DeviceSupportState> = {
  spec: DEVICE_SUPPORT_SPEC,
  tools: TOOLS,
  // the task's rate limit and transient faults: harness rules at the dispatch point
  rules: serviceFaultDispatch(RATE_LIMITED_TOOLS),
  initialState,
  // a decision requested before the episode (e.g. a denial on its way) is due from the start
  startJobs: (s) =>
    Object.entries(params(s).decisions)
      .filter(([, d]) => !d.onRequest)
      .map(([case_id, d]) => ({ due: d.after, kind: "approval.decide", data: { case_id } })),
  taskContext: (s) => ({ case_id: params(s).case_id }),
  runJob(s, job) {
    const data = job.data as { case_id?: string; receipt_id?: string };
    if (job.kind === "approval.decide") {
      const case_id = String(data.case_id);
      const d = params(s).decisions[case_id];
      if (d) {
        s.entities.approvals[case_id] = d.conditions
          ? { status: d.status, conditions: { ...d.conditions } }
          : { status: d.status };
      }
    } else if (job.kind === "receipt.visible") {
      const receipt = s.entities.receipts.find((r) => r.receipt_id === data.receipt_id);
      if (receipt) receipt.visible = true;
    }
  },
  verify: (s, effects) =>
    verifyDeviceSupport({ task: s.task, entities: s.entities, effects, trace: s.trace }),
};

/** The device-support world (spec: spec/device-support.md); it declares admissible actions. */
export class DeviceSupportWorld extends AdmissibleToolWorld<DeviceSupportState> {
  constructor() {
    super(DEFINITION, DEVICE_SUPPORT_ADMISSIBLE);
  }

  static fromState(saved: JsonValue): DeviceSupportWorld {
    return new DeviceSupportWorld().restore(saved);
  }
}
