/**
 * `SessionGate`: the sessions a process holds on one server. Against a fake server with a fixed number
 * of slots: openings past a refusal wait their turn (first come, first served) and get in when one of
 * ours closes; without a wait the refusal is thrown as the server gave it; past the wait an opening
 * fails as the infrastructure's `remote_capacity_reached`; other failures are never retried.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServeClientError } from "../../src/serve/client.ts";
import { startServer, worldTarget } from "../../src/serve/index.ts";
import { openGatedSession, SessionGate } from "../../src/serve/session-gate.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

/** A server with `slots` sessions; its refusal says how many it takes unless `quiet`. */
function fakeServer(slots: number, quiet = false) {
  const server = {
    open: 0,
    attempts: 0,
    async attempt(): Promise<number> {
      server.attempts++;
      await new Promise((resolve) => setImmediate(resolve));
      if (server.open >= slots)
        throw ServeClientError.fromReply("server at capacity [CAPACITY_REACHED]", {
          data: {
            code: "CAPACITY_REACHED",
            message: "server at capacity",
            ...(quiet ? {} : { max_sessions: slots }),
          },
        });
      return ++server.open;
    },
    close() {
      server.open--;
    },
  };
  return server;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SessionGate", () => {
  test("openings past the server's slots wait in turn and get in as ours close", async () => {
    const server = fakeServer(1);
    const gate = new SessionGate(10_000);
    const order: string[] = [];
    const play = async (name: string, ms: number) => {
      const { release } = await gate.open(() => server.attempt());
      order.push(`${name} in`);
      assert.ok(server.open <= 1, "never more sessions than the server has");
      await tick(ms);
      order.push(`${name} out`);
      server.close();
      release();
      release(); // a second release gives nothing back twice
    };
    await Promise.all([play("a", 30), play("b", 10), play("c", 10)]);
    assert.deepEqual(order, ["a in", "a out", "b in", "b out", "c in", "c out"]);
    assert.equal(gate.limit, 1);
    assert.equal(gate.held, 0);
    // once the limit is known, the waiters do not knock on the server: one refusal, not a storm
    assert.ok(server.attempts <= 5, `${server.attempts} attempts`);
  });

  test("a refusal that does not say the limit: the sessions held when it came are the limit", async () => {
    const server = fakeServer(2, true);
    const gate = new SessionGate(10_000);
    const held = await Promise.all([gate.open(() => server.attempt()), gate.open(() => server.attempt())]);
    const third = gate.open(() => server.attempt());
    await tick(20);
    assert.equal(gate.limit, 2);
    server.close();
    held[0]!.release();
    const { release } = await third;
    assert.equal(server.open, 2);
    release();
    held[1]!.release();
    assert.equal(gate.held, 0);
  });

  test("without a wait the refusal is thrown at once, as the server gave it", async () => {
    const server = fakeServer(1);
    const gate = new SessionGate();
    const first = await gate.open(() => server.attempt());
    await assert.rejects(
      gate.open(() => server.attempt()),
      (err: unknown) => {
        assert.ok(err instanceof ServeClientError);
        assert.equal(err.code, "remote_capacity_reached");
        assert.equal(err.fault, "infrastructure");
        return true;
      },
    );
    // the limit is known now: the next one is refused here, without asking the server
    const attempts = server.attempts;
    await assert.rejects(
      gate.open(() => server.attempt()),
      /remote_capacity_reached|holds them all/,
    );
    assert.equal(server.attempts, attempts);
    first.release();
  });

  test("past its wait an opening fails as the infrastructure's, and gives up its place", async () => {
    const server = fakeServer(1);
    const gate = new SessionGate(50);
    const first = await gate.open(() => server.attempt());
    const t0 = Date.now();
    await assert.rejects(
      gate.open(() => server.attempt()),
      (err: unknown) => {
        assert.ok(err instanceof ServeClientError);
        assert.equal(err.code, "remote_capacity_reached");
        assert.match(err.message, /waited 50 ms/);
        return true;
      },
    );
    assert.ok(Date.now() - t0 >= 45);
    server.close();
    first.release();
    // the one that gave up is not handed a slot later
    assert.equal(gate.held, 0);
    const next = await gate.open(() => server.attempt());
    assert.equal(gate.held, 1);
    next.release();
  });

  test("another client holding the slots: retried after a pause until one frees", async () => {
    const server = fakeServer(1, true);
    server.open = 1; // someone else's session
    const gate = new SessionGate(5_000);
    setTimeout(() => server.close(), 100);
    const { value, release } = await gate.open(() => server.attempt());
    assert.equal(value, 1);
    assert.ok(server.attempts >= 2);
    release();
  });

  test("a failure other than capacity is thrown at once and frees the slot", async () => {
    const gate = new SessionGate(5_000);
    let attempts = 0;
    await assert.rejects(
      gate.open(async () => {
        attempts++;
        throw new ServeClientError("remote_unreachable", "connect refused");
      }),
      /connect refused/,
    );
    assert.equal(attempts, 1);
    assert.equal(gate.held, 0);
  });

  test("as a run's admission: once the limit is known, at most that many trials at once, the rest in turn", async () => {
    const server = fakeServer(2);
    const gate = new SessionGate(10_000);
    // before any refusal every trial is admitted
    const early = await Promise.all([gate.enter(), gate.enter(), gate.enter()]);
    for (const exit of early) exit();
    // a refusal tells the limit (two sessions)
    const held = await Promise.all([gate.open(() => server.attempt()), gate.open(() => server.attempt())]);
    const third = gate.open(() => server.attempt());
    await tick(10);
    for (const h of held) {
      server.close();
      h.release();
    }
    (await third).release();
    assert.equal(gate.limit, 2);
    let inside = 0;
    let most = 0;
    const trial = async () => {
      const exit = await gate.enter();
      inside++;
      most = Math.max(most, inside);
      await tick(15);
      inside--;
      exit();
      exit(); // a second exit frees nothing twice
    };
    await Promise.all([trial(), trial(), trial(), trial(), trial()]);
    assert.equal(most, 2);
  });

  test("a session that finishes opening after its owner was closed is closed at once and its slot freed", async () => {
    const served = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    try {
      const gate = new SessionGate();
      await assert.rejects(
        openGatedSession(
          gate,
          served.url,
          {},
          (s) => s.reset({ seed: 1 }),
          () => true,
        ),
        (err: unknown) => err instanceof ServeClientError && err.code === "remote_connection_closed",
      );
      assert.equal(gate.held, 0);
      await eventually(() => served.sessions.size === 0, 5000, "the server's session closed");
      const kept = await openGatedSession(gate, served.url, {}, (s) => s.reset({ seed: 1 }));
      assert.equal(gate.held, 1);
      await kept.session.close();
      kept.release();
      assert.equal(gate.held, 0);
    } finally {
      await served.close();
    }
  });
});
