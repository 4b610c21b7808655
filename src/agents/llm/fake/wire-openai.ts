/** OpenAI chat completions on the wire (non-streaming), for the fake provider. */
import { approxTokens, type FakeReply, type FakeRequest, type FakeTurn } from "./conversation.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Text of an OpenAI `content` (a string or an array of parts). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (isObj(p) && typeof p.text === "string" ? p.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

function parseArgs(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Reads a chat-completions body; throws a message for a 400 when it is not one. */
export function parseOpenAiRequest(body: Obj): FakeRequest {
  if (typeof body.model !== "string") throw new Error("`model` is required");
  if (!Array.isArray(body.messages)) throw new Error("`messages` must be an array");
  if (body.stream === true) throw new Error("this fake provider does not stream; send stream: false");
  const system: string[] = [];
  const turns: FakeTurn[] = [];
  let turn = 0;
  for (const m of body.messages) {
    if (!isObj(m)) throw new Error("each message must be an object");
    if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
    else if (m.role === "user") turns.push({ role: "user", text: textOf(m.content), toolResults: [] });
    else if (m.role === "tool") {
      const last = turns[turns.length - 1];
      const result = { id: String(m.tool_call_id ?? ""), content: textOf(m.content) };
      if (last?.role === "user" && last.text === "") last.toolResults.push(result);
      else turns.push({ role: "user", text: "", toolResults: [result] });
    } else if (m.role === "assistant") {
      turn++;
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      turns.push({
        role: "assistant",
        text: textOf(m.content),
        toolCalls: calls.filter(isObj).map((c) => {
          const fn = isObj(c.function) ? c.function : {};
          return { id: String(c.id ?? ""), name: String(fn.name ?? ""), args: parseArgs(fn.arguments) };
        }),
      });
    } else throw new Error(`unknown message role ${JSON.stringify(m.role)}`);
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isObj).map((t) => {
    const fn = isObj(t.function) ? t.function : {};
    return { name: String(fn.name ?? ""), description: String(fn.description ?? ""), schema: fn.parameters };
  });
  return { format: "openai", model: body.model, system: system.join("\n"), turns, tools, turn, body };
}

/** A chat-completions response for a reply, with usage. */
export function openAiResponse(request: FakeRequest, reply: FakeReply, n: number): Obj {
  const calls = (reply.toolCalls ?? []).map((c, k) => ({
    id: c.id ?? `call_${request.turn}_${k}`,
    type: "function",
    function: {
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
    },
  }));
  const finish = reply.finish ?? (calls.length ? "tool_calls" : "stop");
  const message: Obj = { role: "assistant", content: reply.text ?? null };
  if (calls.length) message.tool_calls = calls;
  const prompt = approxTokens([request.body.messages, request.body.tools]);
  const completion = approxTokens(message);
  return {
    id: `chatcmpl-fake-${n}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: request.model,
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function openAiError(status: number, message: string): Obj {
  const type =
    status === 429
      ? "rate_limit_exceeded"
      : status === 401
        ? "invalid_api_key"
        : status >= 500
          ? "server_error"
          : "invalid_request_error";
  return { error: { message, type, code: type, param: null } };
}
