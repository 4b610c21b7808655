/**
 * The fake provider's neutral view of a request, whatever wire format it came in, and of a reply.
 * Scripted "models" read a `FakeRequest` and answer a `FakeReply`; the wire modules translate.
 */

/** A tool call the model made earlier in the conversation, as the client sent it back. */
export interface FakeHistoryCall {
  id: string;
  name: string;
  /** Parsed arguments (an object), or the raw text when it was not JSON. */
  args: unknown;
}

export type FakeTurn =
  | { role: "user"; text: string; toolResults: Array<{ id: string; content: string }> }
  | { role: "assistant"; text: string; toolCalls: FakeHistoryCall[] };

export interface FakeRequest {
  format: "openai" | "anthropic";
  model: string;
  system: string;
  turns: FakeTurn[];
  tools: Array<{ name: string; description: string; schema: unknown }>;
  /** Number of assistant turns already in the conversation (0 for the first call of an episode). */
  turn: number;
  /** The raw request body. */
  body: Record<string, unknown>;
}

/** One tool call of a reply. `arguments` as a string is sent verbatim (OpenAI), so it can be invalid JSON. */
export interface FakeReplyCall {
  id?: string;
  name: string;
  arguments: unknown;
}

export interface FakeReply {
  text?: string;
  toolCalls?: FakeReplyCall[];
  /** Defaults to `tool_calls`/`tool_use` when there are calls, else `stop`/`end_turn`. */
  finish?: "stop" | "tool_calls" | "length";
}

/** A scripted model: reads the conversation, answers. */
export type FakeModel = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

/** The first user text of the conversation (the task instruction, as the agent rendered it). */
export function firstUserText(request: FakeRequest): string {
  for (const turn of request.turns) if (turn.role === "user" && turn.text) return turn.text;
  return "";
}

/** Every tool call of the conversation, in order, with the content of its result when one was sent. */
export function callHistory(request: FakeRequest): Array<FakeHistoryCall & { result?: string }> {
  const results = new Map<string, string>();
  for (const turn of request.turns) {
    if (turn.role === "user") for (const r of turn.toolResults) results.set(r.id, r.content);
  }
  const out: Array<FakeHistoryCall & { result?: string }> = [];
  for (const turn of request.turns) {
    if (turn.role !== "assistant") continue;
    for (const call of turn.toolCalls) {
      const result = results.get(call.id);
      out.push(result === undefined ? { ...call } : { ...call, result });
    }
  }
  return out;
}

/** Rough, deterministic token count (4 characters a token), as a stand-in for a tokenizer. */
export function approxTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}
