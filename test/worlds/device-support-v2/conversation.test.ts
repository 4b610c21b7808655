/**
 * device-support@2's customer: a reply is a later observation in virtual time; the customer knows only
 * its own facts; scripted personas are deterministic, answer only what is asked, and correct a wrong
 * read-back; saved mid-conversation, an episode restores without the simulator.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../../../src/core/json.ts";
import {
  type ConversationParams,
  DeviceSupportWorldV2,
  deviceSupportV2,
  deviceSupportV2World,
} from "../../../src/worlds/device-support/index.ts";
import { type CustomerSimulator, PERSONAS, scriptedReply } from "../../../src/worlds/shared/index.ts";

const conversationOf = (t: { params: JsonObject }) => t.params.conversation as unknown as ConversationParams;

async function start(family: string, customer: string, seed = 0, world = deviceSupportV2) {
  const task = world.generateTask({ family, difficulty: 1, seed, params: { customer } });
  const env = world.create();
  await env.reset({ task, seed });
  const caseId = String(task.params.case_id);
  let n = 0;
  const call = async (tool: string, args: JsonObject) =>
    (
      await env.step({
        tool,
        args: tool === "wait" ? args : { case_id: caseId, ...args },
        callId: String(n++),
      })
    ).observation;
  const read = async () => {
    const o = await call("read_messages", {});
    assert.equal(o.kind, "tool_result");
    return (o.kind === "tool_result" && o.result.ok ? o.result.messages : []) as JsonObject[];
  };
  return { task, env, caseId, call, read, profile: conversationOf(task).customer };
}

describe("device-support@2 customer", () => {
  test("send_message's reply arrives later, as a read_messages observation", async () => {
    const { call, read, profile } = await start("stale-address", "cooperative");
    const sent = await call("send_message", { text: "Which address should we ship it to?" });
    assert.ok(sent.kind === "tool_result" && sent.result.ok);
    assert.deepEqual(
      (await read()).map((m) => m.from),
      ["agent"],
      "no reply yet: it takes virtual time",
    );
    await call("wait", { seconds: 120 });
    const messages = await read();
    assert.deepEqual(
      messages.map((m) => m.from),
      ["agent", "customer"],
    );
    const reply = messages[1];
    assert.ok(String(reply.text).includes(profile.facts.address), String(reply.text));
    assert.ok(!profile.onFile.address.includes(profile.facts.address), "the new address is not on file");
    assert.deepEqual(
      Object.keys(reply).sort(),
      ["from", "message_id", "t", "text"],
      "no acts shown to the agent",
    );
  });

  test("the customer's profile holds its own facts only, never the task's plan", () => {
    const task = deviceSupportV2.generateTask({ family: "withdrawn", difficulty: 2, seed: 4 });
    const text = JSON.stringify(conversationOf(task).customer);
    for (const hidden of ["withdrawn", "no_action", "approved", "decisions", String(task.params.case_id)])
      assert.ok(!text.includes(hidden), `the profile names ${hidden}`);
  });

  test("every persona answers only what is asked and refuses a wrong read-back, deterministically", () => {
    for (const persona of PERSONAS) {
      for (const family of ["stale-address", "wrong-device"]) {
        const task = deviceSupportV2.generateTask({
          family,
          difficulty: 1,
          seed: 3,
          params: { customer: persona },
        });
        const profile = conversationOf(task).customer;
        const turn = (text: string) => ({
          profile,
          thread: [],
          message: { from: "agent" as const, text, t: 0 },
          turn: 0,
        });
        const hello = scriptedReply(turn("Hello, I'm looking into your case."));
        assert.deepEqual(
          hello.acts.stated,
          {},
          `${persona}: volunteered ${JSON.stringify(hello.acts.stated)}`,
        );
        const asked = scriptedReply(turn("Which device model do you have?"));
        assert.deepEqual(Object.keys(asked.acts.stated), ["model"]);
        assert.deepEqual(
          asked,
          scriptedReply(turn("Which device model do you have?")),
          "same turn, same reply",
        );
        const wrong = profile.models.find((m) => m !== profile.facts.model)!;
        const back = scriptedReply(turn(`To confirm, your device is a ${wrong}?`));
        assert.deepEqual(back.acts.confirmed, {});
        assert.equal(back.acts.refused.model, wrong);
        assert.equal(back.acts.stated.model, profile.facts.model);
      }
    }
  });

  test("the mistaken persona names the value on file first, and corrects it when read back", async () => {
    const { call, read, profile } = await start("wrong-device", "mistaken", 1);
    await call("send_message", { text: "Which device model do you have?" });
    await call("wait", { seconds: 200 });
    const first = String((await read()).at(-1)?.text);
    assert.ok(first.includes(profile.onFile.model) && !first.includes(profile.facts.model), first);
    await call("send_message", { text: `To confirm, your device is a ${profile.onFile.model}?` });
    await call("wait", { seconds: 200 });
    const second = String((await read()).at(-1)?.text);
    assert.ok(second.includes(profile.facts.model), second);
  });

  test("saved mid-conversation, the episode restores and delivers the reply without asking the simulator", async () => {
    let calls = 0;
    const counting: CustomerSimulator = {
      id: "counting",
      reply(turn) {
        calls++;
        return scriptedReply(turn);
      },
    };
    const world = deviceSupportV2World({ simulators: [counting] });
    const task = world.generateTask({
      family: "stale-address",
      difficulty: 1,
      seed: 2,
      params: { simulator: "counting" },
    });
    const env = world.create();
    await env.reset({ task, seed: 2 });
    const caseId = String(task.params.case_id);
    await env.step({
      tool: "send_message",
      args: { case_id: caseId, text: "Which address should we ship it to?" },
      callId: "a",
    });
    assert.equal(calls, 1);
    const restored = DeviceSupportWorldV2.fromState(env.saveState(), new Map());
    await restored.step({ tool: "wait", args: { seconds: 300 }, callId: "b" });
    const o = (await restored.step({ tool: "read_messages", args: { case_id: caseId }, callId: "c" }))
      .observation;
    assert.ok(o.kind === "tool_result" && o.result.ok);
    assert.equal((o.result.messages as JsonObject[]).filter((m) => m.from === "customer").length, 1);
    assert.equal(calls, 1);
  });
});
