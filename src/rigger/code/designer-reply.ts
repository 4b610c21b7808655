import type { JsonObject } from "../../core/json.ts";
import type { LayerSpec } from "../../harness/variant.ts";
import type { Proposal } from "../types.ts";

/**
 * Reads a designer's reply (the format of `REPLY_FORMAT`): sections headed `### Proposal: ...`, each
 * with a ```typescript block (a code proposal) or a ```json block `{layers: [...]}` (a layers
 * proposal). A reply without headers is read as one section. Problems are reported, not thrown, so
 * the designer can ask the model again.
 */
export interface ParsedReply {
  proposals: Proposal[];
  /** What could not be read (a section without a block, JSON that does not parse, ...). */
  problems: string[];
}

const FENCE = /```([\w-]*)[^\n]*\n([\s\S]*?)```/g;

function isLayer(v: unknown): v is LayerSpec {
  const l = v as LayerSpec;
  return (
    typeof l === "object" &&
    l !== null &&
    typeof l.id === "string" &&
    (l.params === undefined || (typeof l.params === "object" && l.params !== null))
  );
}

function readSection(section: string, index: number): { proposal?: Proposal; problem?: string } {
  const header = /^\s*#{1,4}\s*Proposal\b[^:\n]*:?\s*(.*)$/im.exec(section);
  const firstLine = section
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("```"));
  const rationale = (header?.[1] || firstLine || `proposal ${index + 1}`).trim().slice(0, 300);
  const blocks = [...section.matchAll(FENCE)].map((m) => ({ lang: m[1].toLowerCase(), body: m[2] }));
  const code = blocks.find((b) => ["typescript", "ts", "javascript", "js", ""].includes(b.lang));
  const data = blocks.find((b) => b.lang === "json");
  if (code?.body.trim()) return { proposal: { kind: "code", source: `${code.body.trimEnd()}\n`, rationale } };
  if (data) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.body);
    } catch (err) {
      return { problem: `proposal ${index + 1}: its json block does not parse (${(err as Error).message})` };
    }
    const layers = (parsed as { layers?: unknown })?.layers;
    if (!Array.isArray(layers) || layers.length === 0 || !layers.every(isLayer)) {
      return { problem: `proposal ${index + 1}: a json block must be {"layers": [{"id", "params"}, ...]}` };
    }
    return {
      proposal: {
        kind: "layers",
        layers: layers.map((l) => ({ id: l.id, params: (l.params ?? {}) as JsonObject })),
        rationale,
      },
    };
  }
  return { problem: `proposal ${index + 1}: no \`\`\`typescript or \`\`\`json block` };
}

/** The proposals of a reply (at most `max`), and what could not be read. */
export function parseDesignerReply(text: string, max = 3): ParsedReply {
  const starts = [...text.matchAll(/^\s*#{1,4}\s*Proposal\b/gim)].map((m) => m.index ?? 0);
  const sections = starts.length ? starts.map((s, i) => text.slice(s, starts[i + 1] ?? text.length)) : [text];
  const proposals: Proposal[] = [];
  const problems: string[] = [];
  sections.forEach((section, i) => {
    const r = readSection(section, i);
    if (r.proposal && proposals.length < max) proposals.push(r.proposal);
    if (r.problem) problems.push(r.problem);
  });
  if (proposals.length === 0 && problems.length === 0) problems.push("no proposal found");
  return { proposals, problems };
}
