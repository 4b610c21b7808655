/** code-repair@1 on ToolWorld: the workspace is plain data in the state; the sandbox is injected. */
import type { JsonValue } from "../../core/json.ts";
import { toolDescriptor } from "../../core/tool.ts";
import { episodeStart, type ToolWorldDefinition } from "../../core/tool-world.ts";
import { AdmissibleToolWorld } from "../shared/index.ts";
import { CODE_REPAIR_ADMISSIBLE } from "./admissible.ts";
import type { CodeSandbox } from "./sandbox.ts";
import { type CodeRepairParams, type CodeRepairState, VERIFIER_ID, WORLD_ID } from "./state.ts";
import { codeRepairTools } from "./tools.ts";
import { verifyCodeRepair } from "./verifier.ts";

export function codeRepairDefinition(sandbox: CodeSandbox): ToolWorldDefinition<CodeRepairState> {
  const tools = codeRepairTools(sandbox);
  return {
    spec: {
      id: WORLD_ID,
      world: WORLD_ID,
      tools: tools.map(toolDescriptor),
      terminalTools: ["submit"],
      verifier: VERIFIER_ID,
    },
    tools,
    initialState: (task, seed, episode) => {
      const params = task.params as unknown as CodeRepairParams;
      return {
        ...episodeStart(WORLD_ID, task, seed, episode, 1),
        entities: { files: { ...params.files }, submitted: null, escapes: [], runs: 0 },
        faults: {},
        counters: {},
      };
    },
    taskContext: (s) => ({ files: Object.keys(s.entities.files).sort() }),
    runJob: () => undefined,
    verify: (s, effects) => verifyCodeRepair(sandbox, s, effects),
  };
}

/** A code-repair@1 environment (not yet reset); it declares admissible actions. */
export function createCodeRepairWorld(sandbox: CodeSandbox): AdmissibleToolWorld<CodeRepairState> {
  return new AdmissibleToolWorld(codeRepairDefinition(sandbox), CODE_REPAIR_ADMISSIBLE);
}

/** A code-repair@1 environment restored from its `saveState()`. */
export function restoreCodeRepairWorld(
  sandbox: CodeSandbox,
  state: JsonValue,
): AdmissibleToolWorld<CodeRepairState> {
  return new AdmissibleToolWorld(codeRepairDefinition(sandbox), CODE_REPAIR_ADMISSIBLE).restore(state);
}
