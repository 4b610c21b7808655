import assert from "node:assert/strict";
import { test } from "node:test";
import { Episode, worldTarget } from "../../src/serve/index.ts";
import { parseAction, ServeError } from "../../src/serve/protocol.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const episode = () => new Episode(worldTarget(deviceSupport), {}, { kind: "ws", key: "k", now: 0 });

test("Episode.exclusive: an idle session starts at once; queued operations keep their order", async () => {
  const s = episode();
  const log: string[] = [];
  let release: () => void = () => {};
  const first = s.exclusive(
    () => 1,
    () => {
      log.push("first started");
      return new Promise<string>((r) => {
        release = () => r("first");
      });
    },
  );
  assert.deepEqual(log, ["first started"], "an idle session runs fn before exclusive returns");
  const second = s.exclusive(
    () => 2,
    async () => {
      log.push("second started");
      throw new Error("boom");
    },
  );
  const third = s.exclusive(
    () => 3,
    async () => {
      log.push("third started");
      return "third";
    },
  );
  await Promise.resolve();
  assert.deepEqual(log, ["first started"], "queued work waits for the running operation");
  assert.equal(s.isBusy, true);
  release();
  assert.equal(await first, "first");
  await assert.rejects(second, /boom/);
  assert.equal(await third, "third", "a failed operation does not block the next");
  assert.deepEqual(log, ["first started", "second started", "third started"]);
  assert.equal(s.isBusy, false);
  assert.equal(s.lastActive, 3);
});

test("Episode.exclusive: a synchronous throw and a disposed session become rejections", async () => {
  const s = episode();
  await assert.rejects(
    s.exclusive(
      () => 0,
      () => {
        throw new Error("sync");
      },
    ),
    /sync/,
  );
  assert.equal(s.isBusy, false);
  s.dispose("test");
  let ran = false;
  await assert.rejects(
    s.exclusive(
      () => 0,
      async () => {
        ran = true;
      },
    ),
    (err: unknown) => err instanceof ServeError && err.code === "SESSION_ERROR",
  );
  assert.equal(ran, false);
});

test("parseAction: the hand-checked common shape agrees with the schema", () => {
  const args = { case_id: "C-1" };
  const ok = parseAction({ tool: "get_approval", args });
  assert.deepEqual(ok, { tool: "get_approval", args });
  assert.equal(ok.args, args, "args pass through as parsed");
  assert.deepEqual(parseAction({ tool: "t" }), { tool: "t", args: {} });
  assert.deepEqual(parseAction({ tool: "t", call_id: "c1" }), { tool: "t", args: {}, callId: "c1" });
  assert.deepEqual(parseAction({ tool: "t", callId: "a", call_id: "b" }), {
    tool: "t",
    args: {},
    callId: "a",
  });
  // metadata is left to the schema, which accepts an object
  assert.deepEqual(parseAction({ tool: "t", metadata: { x: 1 } }), { tool: "t", args: {} });
  const refused: unknown[] = [
    { tool: "" },
    { tool: 3 },
    {},
    { tool: "t", args: [] },
    { tool: "t", args: null },
    { tool: "t", args: "x" },
    { tool: "t", callId: "" },
    { tool: "t", call_id: "x".repeat(256) },
    { tool: "t", callId: 7 },
    { tool: "t", extra: 1 },
    { tool: "t", metadata: [] },
    JSON.parse('{"tool":"t","__proto__":{"x":1}}'),
  ];
  for (const value of refused) {
    assert.throws(
      () => parseAction(value, "step.data"),
      (err: unknown) =>
        err instanceof ServeError && err.code === "VALIDATION_ERROR" && /step\.data/.test(err.message),
      JSON.stringify(value),
    );
  }
  assert.deepEqual(parseAction({ tool: "t", callId: "x".repeat(255) }).callId, "x".repeat(255));
});
