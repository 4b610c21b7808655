/**
 * Scripts for the fake provider, as the CLI takes them (`proving fake-llm --script ...`):
 * - `policy:NAME` or `policy:NAME@WORLD`: a model that follows a world's scripted policy
 *   (`policy:cautious`, `policy:claims-success`, ...);
 * - a JSON/YAML file: `{ model?: "policy:NAME", replies?: [reply...], malformed?: {TURN: kind},
 *   faults?: FaultPlan }`, where a reply is `{text?, toolCalls?: [{name, arguments}], finish?}` and
 *   `replies` answer by conversation turn (the last one repeats).
 */
import { configError } from "../../../core/errors.ts";
import type { Registry } from "../../../core/registry.ts";
import type { FakeModel, FakeReply } from "./conversation.ts";
import type { FaultPlan } from "./faults.ts";
import { type MalformedKind, policyModel, sequenceModel, withMalformed } from "./models.ts";

export interface FakeScriptFile {
  model?: string;
  replies?: FakeReply[];
  malformed?: Record<string, MalformedKind>;
  faults?: FaultPlan;
}

export interface LoadedScript {
  model: FakeModel;
  faults: FaultPlan;
  description: string;
}

const MALFORMED: readonly MalformedKind[] = ["invalid_json", "unknown_tool", "non_object", "text_only"];

/** A model that follows scripted policy `name` of a world in the registry (default: any world that has it). */
export function policyModelByName(name: string, registry: Registry): FakeModel {
  const [policy, worldId] = splitAt(name);
  const worlds = worldId ? [registry.world(worldId)] : registry.listWorlds();
  for (const world of worlds) {
    const agent = world.policies[policy];
    if (agent) return policyModel(agent);
  }
  const known = worlds.flatMap((w) => Object.keys(w.policies).map((p) => `policy:${p}`));
  throw configError("unknown_script", `no scripted policy "${policy}" (known: ${known.join(", ")})`);
}

function splitAt(name: string): [string, string | undefined] {
  const at = name.indexOf("@");
  if (at < 0) return [name, undefined];
  // `cautious@device-support@1` → policy `cautious`, world `device-support@1`
  return [name.slice(0, at), name.slice(at + 1)];
}

/** Builds a script from the CLI's `--script` value; `readData` reads a JSON/YAML file. */
export function loadFakeScript(
  spec: string,
  registry: Registry,
  readData: (file: string) => unknown,
): LoadedScript {
  if (spec.startsWith("policy:")) {
    return { model: policyModelByName(spec.slice(7), registry), faults: {}, description: spec };
  }
  const data = readData(spec) as FakeScriptFile;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw configError("bad_script", `${spec}: a fake-llm script file holds one object`);
  }
  let model: FakeModel;
  if (data.replies !== undefined) {
    if (!Array.isArray(data.replies) || data.replies.length === 0) {
      throw configError("bad_script", `${spec}: replies must be a non-empty list`);
    }
    model = sequenceModel(data.replies);
  } else if (typeof data.model === "string" && data.model.startsWith("policy:")) {
    model = policyModelByName(data.model.slice(7), registry);
  } else {
    throw configError("bad_script", `${spec}: give either "replies" or "model": "policy:NAME"`);
  }
  if (data.malformed) {
    const at: Record<number, MalformedKind> = {};
    for (const [turn, kind] of Object.entries(data.malformed)) {
      if (!MALFORMED.includes(kind)) {
        throw configError("bad_script", `${spec}: malformed.${turn}: one of ${MALFORMED.join(", ")}`);
      }
      at[Number(turn)] = kind;
    }
    model = withMalformed(model, at);
  }
  return { model, faults: data.faults ?? {}, description: spec };
}
