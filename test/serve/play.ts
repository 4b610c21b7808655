/** Helpers for serve tests: play a scripted policy of device-support against any step function. */
import type { ChildProcess } from "node:child_process";
import type { Action, Agent, Observation, TaskObservation } from "../../src/core/contracts.ts";
import type { StepEnvelope, WireAction } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

export async function playPolicy(
  policy: string,
  first: StepEnvelope,
  step: (action: WireAction) => Promise<StepEnvelope>,
  maxSteps = 400,
): Promise<{ last: StepEnvelope; steps: StepEnvelope[] }> {
  const agent = deviceSupport.policies[policy];
  if (!agent) throw new Error(`no policy ${policy}`);
  const obs0 = first.observation as TaskObservation;
  const session = await agent.start({
    episodeId: String(first.metadata.episode_id ?? "test"),
    world: deviceSupport.id,
    instruction: obs0.instruction,
    tools: obs0.tools,
    samplingSeed: 0,
  });
  let current = first;
  const steps: StepEnvelope[] = [];
  while (!current.done) {
    if (steps.length >= maxSteps) throw new Error(`episode did not end within ${maxSteps} steps`);
    const action = await session.act(current.observation as Observation);
    current = await step({ tool: action.tool, args: action.args });
    steps.push(current);
  }
  return { last: current, steps };
}

/** Polls `check` until it is true (or fails after `limitMs`; a guard against hangs, not a timing assertion). */
export async function eventually(check: () => boolean, limitMs = 20_000, what = "condition"): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not reached within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The case id a device-support task names (from the reset observation's context). */
export function caseIdOf(first: StepEnvelope): string {
  const obs = first.observation as TaskObservation;
  return String(obs.context.case_id);
}

/** A scripted agent that plays a recorded action list through the runner (then an unknown tool). */
export function replaying(actions: Action[]): Agent {
  return {
    id: "replay",
    start: () => {
      let i = 0;
      return { act: async () => actions[i++] ?? { tool: "__none__", args: {} } };
    },
  };
}

/** The first line a child process (`proving serve --json`) prints on stdout. */
export async function firstLine(child: ChildProcess): Promise<string> {
  let out = "";
  for await (const chunk of child.stdout as NodeJS.ReadableStream) {
    out += String(chunk);
    if (out.includes("\n")) return out.split("\n")[0];
  }
  throw new Error("serve printed nothing");
}
