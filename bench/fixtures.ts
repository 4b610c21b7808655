import type {
  Action,
  Agent,
  AgentAction,
  AgentSession,
  Observation,
  Task,
  TrialSpec,
} from "../src/core/contracts.ts";
import type { JsonObject } from "../src/core/json.ts";
import { DEFAULT_BUDGET } from "../src/runner/experiment.ts";
import { deviceSupport } from "../src/worlds/device-support/index.ts";
import type { DeviceSupportParams } from "../src/worlds/device-support/tasks.ts";

/** The world every benchmark drives. */
export const WORLD = deviceSupport;

/** A task whose approval is already granted: every tool in the mix answers `ok`. */
export function benchTask(seed = 1): Task {
  return WORLD.generateTask({ family: "approved-replacement", difficulty: 1, seed });
}

/** The ids a tool mix needs, as an agent would learn them from `get_case`. */
export interface CaseIds {
  caseId: string;
  deviceId: string;
  model: string;
  addressId: string;
}

export function caseIdsOf(task: Task): CaseIds {
  const p = task.params as unknown as DeviceSupportParams;
  const c = p.cases.find((x) => x.case_id === p.case_id)!;
  const customer = p.customers.find((x) => x.customer_id === c.customer_id)!;
  const device = p.devices.find((x) => x.device_id === c.device_id)!;
  return {
    caseId: c.case_id,
    deviceId: device.device_id,
    model: device.model,
    addressId: customer.addresses[0].address_id,
  };
}

/**
 * The tool mix of the step benchmarks: reads (case, warranty, approval, find), an idempotent write
 * (the first call commits, later ones replay by key) and a wait. Six tools, every call valid.
 */
export function toolMix(ids: CaseIds): Array<{ tool: string; args: JsonObject }> {
  const key = `${ids.caseId}-bench`;
  return [
    { tool: "get_case", args: { case_id: ids.caseId } },
    { tool: "check_warranty", args: { device_id: ids.deviceId } },
    { tool: "get_approval", args: { case_id: ids.caseId } },
    {
      tool: "create_replacement",
      args: { case_id: ids.caseId, model: ids.model, address_id: ids.addressId, idempotency_key: key },
    },
    { tool: "find_replacements", args: { idempotency_key: key } },
    { tool: "wait", args: { seconds: 1 } },
  ];
}

/** The i-th action of the mix as an agent would send it (a fresh object each call, as from a model). */
export function mixAction(ids: CaseIds, i: number): AgentAction {
  const key = `${ids.caseId}-bench`;
  switch (i % 6) {
    case 0:
      return { tool: "get_case", args: { case_id: ids.caseId } };
    case 1:
      return { tool: "check_warranty", args: { device_id: ids.deviceId } };
    case 2:
      return { tool: "get_approval", args: { case_id: ids.caseId } };
    case 3:
      return {
        tool: "create_replacement",
        args: { case_id: ids.caseId, model: ids.model, address_id: ids.addressId, idempotency_key: key },
      };
    case 4:
      return { tool: "find_replacements", args: { idempotency_key: key } };
    default:
      return { tool: "wait", args: { seconds: 1 } };
  }
}

export function closeAction(ids: CaseIds, reference: string): AgentAction {
  return {
    tool: "close_case",
    args: { case_id: ids.caseId, resolution: "replacement_created", reference },
  };
}

export interface MixAgentOptions {
  /** Tool calls before `close_case` (at least 1: the first is `get_case`). */
  steps: number;
  /** After this many calls, `act()` waits for `gate` before answering (an idle, open episode). */
  pauseAfter?: number;
  gate?: Promise<void>;
  /** Called once when the session reaches its pause. */
  onPause?: () => void;
}

/** Reads the ids the mix needs from a `get_case` result, as an agent would. */
function idsFromCase(caseId: string, result: JsonObject): CaseIds {
  const device = result.device as JsonObject;
  const customer = result.customer as JsonObject;
  return {
    caseId,
    deviceId: String(device.device_id),
    model: String(device.model),
    addressId: String(((customer.addresses as JsonObject[])[0] as JsonObject).address_id),
  };
}

/**
 * A scripted agent that plays the tool mix for `steps` calls (learning its ids from `get_case`,
 * the first call), then closes the case with the request id it saw. It costs next to nothing to
 * think: what is measured is the gym.
 */
export function mixAgent(opts: MixAgentOptions): Agent {
  return {
    id: "bench-mix",
    start: (): AgentSession => {
      let caseId = "";
      let ids: CaseIds | undefined;
      let i = 0;
      let reference = "";
      return {
        act: async (observation: Observation): Promise<AgentAction> => {
          if (observation.kind === "task") caseId = String(observation.context.case_id);
          else if (observation.result.ok) {
            if (observation.tool === "get_case" && !ids) ids = idsFromCase(caseId, observation.result);
            else if (observation.tool === "create_replacement")
              reference = String(observation.result.request_id);
          }
          if (opts.pauseAfter !== undefined && i === opts.pauseAfter && opts.gate) {
            opts.onPause?.();
            await opts.gate;
          }
          if (i === 0) {
            i++;
            return { tool: "get_case", args: { case_id: caseId } };
          }
          if (!ids) throw new Error("bench: get_case failed");
          if (i < opts.steps) return mixAction(ids, i++);
          return closeAction(ids, reference);
        },
      };
    },
  };
}

/** A trial spec for the benchmark world: approved-replacement, difficulty 1, the default wall timeout. */
export function benchSpec(index: number, maxSteps: number, seed = 1, experimentId = "bench"): TrialSpec {
  return {
    schemaVersion: 1,
    id: `${experimentId}-t${index}`,
    experimentId,
    index,
    world: WORLD.id,
    family: "approved-replacement",
    difficulty: 1,
    seed,
    repeat: 0,
    agent: { id: "bench-mix", kind: "scripted", spec: "bench-mix" },
    budget: { ...DEFAULT_BUDGET, maxSteps, maxVirtualSeconds: 1e9 },
  };
}

export function action(a: AgentAction, callId: string): Action {
  return { tool: a.tool, args: a.args, callId };
}
