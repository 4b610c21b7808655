/**
 * Scripted "models" for the fake provider. `policyModel` follows one of a world's scripted policies,
 * driven only by what the conversation shows: it replays the conversation's tool calls and results
 * into a fresh policy session and answers with the policy's next action.
 */
import type { Agent, AgentAction, Observation, ToolResult } from "../../../core/contracts.ts";
import { canonicalJson } from "../../../core/hash.ts";
import {
  callHistory,
  type FakeModel,
  type FakeReply,
  type FakeRequest,
  firstUserText,
} from "./conversation.ts";

/** Calls whose id starts with this were injected by a fault script; a policy model does not replay them. */
export const INJECTED_CALL_PREFIX = "bad_";

function parseResult(content: string | undefined): ToolResult {
  if (content === undefined) {
    return { ok: false, error: { code: "no_result", message: "no result was sent", retryable: false } };
  }
  try {
    const value = JSON.parse(content) as unknown;
    if (typeof value === "object" && value !== null && "ok" in value) return value as ToolResult;
  } catch {
    // not JSON: fall through
  }
  return { ok: false, error: { code: "unparsed_result", message: content.slice(0, 200), retryable: false } };
}

const say = (text: string): FakeReply => ({ text, finish: "stop" });

/** A model that behaves like the scripted policy `agent` (e.g. the world's `cautious`). */
export function policyModel(agent: Agent): FakeModel {
  return async (request: FakeRequest): Promise<FakeReply> => {
    const instruction = firstUserText(request);
    const session = await agent.start({
      episodeId: "fake-llm",
      world: "",
      instruction,
      tools: [],
      samplingSeed: 0,
    });
    const task: Observation = { kind: "task", instruction, context: {}, tools: [] };
    let next: AgentAction;
    try {
      next = await session.act(task);
      for (const call of callHistory(request)) {
        if (call.id.startsWith(INJECTED_CALL_PREFIX)) continue;
        if (call.name !== next.tool || canonicalJson(call.args) !== canonicalJson(next.args ?? {})) {
          return say(`I expected to call ${next.tool}, but the conversation shows ${call.name}; stopping.`);
        }
        if (call.result === undefined) return say("A tool call has no result yet.");
        next = await session.act({
          kind: "tool_result",
          tool: call.name,
          callId: call.id,
          result: parseResult(call.result),
          now: 0,
        });
      }
    } catch (err) {
      return say(`I have nothing more to do (${err instanceof Error ? err.message : String(err)}).`);
    }
    return { toolCalls: [{ name: next.tool, arguments: next.args ?? {} }] };
  };
}

/** Replies by conversation turn: `replies[turn]`, the last one repeated after the end. */
export function sequenceModel(replies: FakeReply[]): FakeModel {
  if (replies.length === 0) throw new Error("a sequence script needs at least one reply");
  return (request) => replies[Math.min(request.turn, replies.length - 1)];
}

export type MalformedKind = "invalid_json" | "unknown_tool" | "non_object" | "text_only";

/** What a model sends when it misbehaves on purpose (ids carry INJECTED_CALL_PREFIX). */
export function malformedReply(kind: MalformedKind, request: FakeRequest): FakeReply {
  const id = `${INJECTED_CALL_PREFIX}${request.turn}`;
  const tool = request.tools[0]?.name ?? "tool";
  switch (kind) {
    case "invalid_json":
      return { toolCalls: [{ id, name: tool, arguments: '{"case_id": "C-1", ' }] };
    case "unknown_tool":
      return { toolCalls: [{ id, name: "launch_rocket", arguments: { target: "moon" } }] };
    case "non_object":
      return { toolCalls: [{ id, name: tool, arguments: "[1, 2, 3]" }] };
    case "text_only":
      return { text: "I think the case is handled.", finish: "stop" };
  }
}

/** Wraps a model so that at the given conversation turns it misbehaves instead. */
export function withMalformed(model: FakeModel, at: Record<number, MalformedKind>): FakeModel {
  return (request) => {
    const kind = at[request.turn];
    return kind ? malformedReply(kind, request) : model(request);
  };
}
