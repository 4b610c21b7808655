/** A skill bank as an LLM agent's per-task skill source (BM25 over the task's instruction and tools). */
import type { SkillSource } from "../agents/llm/session.ts";
import { bm25Retrieve } from "./retrieval.ts";
import type { SkillBank } from "./skill-bank.ts";

export function skillSource(bank: SkillBank, k = 3): SkillSource {
  return (task) =>
    bm25Retrieve(bank, `${task.instruction} ${task.tools.map((t) => t.name).join(" ")}`, k).map((r) => ({
      id: r.skill.id,
      text: r.skill.text,
    }));
}
