/** Anthropic messages on the wire (non-streaming), for the fake provider. */
import { approxTokens, type FakeReply, type FakeRequest, type FakeTurn } from "./conversation.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function blocks(content: unknown): Obj[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObj) : [];
}

function textOf(content: unknown): string {
  return blocks(content)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

/** Reads a messages body; throws a message for a 400 when it is not one. */
export function parseAnthropicRequest(body: Obj): FakeRequest {
  if (typeof body.model !== "string") throw new Error("model: Field required");
  if (!Array.isArray(body.messages)) throw new Error("messages: Field required");
  if (typeof body.max_tokens !== "number") throw new Error("max_tokens: Field required");
  if (body.stream === true) throw new Error("this fake provider does not stream; send stream: false");
  const turns: FakeTurn[] = [];
  let turn = 0;
  for (const m of body.messages) {
    if (!isObj(m)) throw new Error("each message must be an object");
    const parts = blocks(m.content);
    if (m.role === "user") {
      turns.push({
        role: "user",
        text: textOf(parts),
        toolResults: parts
          .filter((b) => b.type === "tool_result")
          .map((b) => ({ id: String(b.tool_use_id ?? ""), content: textOf(b.content) })),
      });
    } else if (m.role === "assistant") {
      turn++;
      turns.push({
        role: "assistant",
        text: textOf(parts),
        toolCalls: parts
          .filter((b) => b.type === "tool_use")
          .map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), args: b.input })),
      });
    } else throw new Error(`messages: unexpected role ${JSON.stringify(m.role)}`);
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isObj).map((t) => ({
    name: String(t.name ?? ""),
    description: String(t.description ?? ""),
    schema: t.input_schema,
  }));
  return { format: "anthropic", model: body.model, system: textOf(body.system), turns, tools, turn, body };
}

/**
 * A messages response. Anthropic sends tool input as a JSON object, so a reply whose arguments are a
 * string (invalid JSON on OpenAI) is sent as that string, which a client must reject as malformed.
 */
export function anthropicResponse(request: FakeRequest, reply: FakeReply, n: number): Obj {
  const content: Obj[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  (reply.toolCalls ?? []).forEach((c, k) => {
    let input = c.arguments ?? {};
    if (typeof input === "string") {
      try {
        input = JSON.parse(input);
      } catch {
        // stays a string: malformed on purpose
      }
    }
    content.push({ type: "tool_use", id: c.id ?? `toolu_${request.turn}_${k}`, name: c.name, input });
  });
  const hasCalls = (reply.toolCalls ?? []).length > 0;
  const stop =
    reply.finish === "length" ? "max_tokens" : reply.finish === "stop" || !hasCalls ? "end_turn" : "tool_use";
  return {
    id: `msg_fake_${n}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: approxTokens([request.body.system, request.body.messages, request.body.tools]),
      output_tokens: approxTokens(content),
    },
  };
}

export function anthropicError(status: number, message: string): Obj {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status === 401
          ? "authentication_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
  return { type: "error", error: { type, message } };
}
