// The process a module agent runs in (src/agents/module-agent-process.ts): one per agent and run, out of
// the runner's reach. It imports the agent module once, plays every session the runner opens (so an
// agent can carry what it learns from one episode to the next), and answers each observation with the
// action as a JSON string (whatever the agent returned — a Proxy, a getter, a cycle, a BigInt — is turned
// into plain data here, in the agent's own process, or reported as its error).
// Plain JavaScript on purpose: it runs without tsx; a `.ts` agent arrives bundled (prepareModule).
// Messages come over the IPC channel: {id, type: "load" | "start" | "act" | "end", session?, ...};
// each gets one reply {id, type, ...}. A fatal error (uncaught, unhandled) is reported as
// {type: "fatal", message} before the process exits.

import { pathToFileURL } from "node:url";

const send = process.send.bind(process);
const file = process.argv[2];

// What the agent cannot reach from here: killing other processes (the runner), native bindings. (Under
// bubblewrap the runner is not even visible; Node's permission model already denies child processes,
// workers and writes.)
for (const name of ["kill", "_kill", "binding", "_linkedBinding", "dlopen", "_debugProcess"]) {
  if (name in process)
    Object.defineProperty(process, name, {
      value: () => {
        throw new Error(`process.${name} is not available to an agent`);
      },
      writable: false,
      configurable: false,
    });
}

const message = (err) => {
  try {
    if (err instanceof Error) return String(err.message);
    return typeof err === "string" ? err : (JSON.stringify(err) ?? String(err));
  } catch {
    return "a value that cannot be shown";
  }
};

const fatal = (what) => (err) => {
  try {
    send({ type: "fatal", message: `${what}: ${message(err)}` }, () => process.exit(70));
  } catch {
    process.exit(70);
  }
};
process.on("uncaughtException", fatal("uncaught exception"));
process.on("unhandledRejection", fatal("unhandled rejection"));
// the runner is gone: so is its agent
process.on("disconnect", () => process.exit(0));

async function importAgent() {
  // a TypeScript agent comes bundled as JavaScript (prepareModule): the process cannot run esbuild
  const mod = await import(pathToFileURL(file).href);
  const inner = mod.default;
  return inner !== null && typeof inner === "object" && inner.__esModule === true ? inner : mod;
}

/**
 * A JSON.stringify replacer that refuses what JSON would silently change (as the runner refuses it
 * from an in-process agent): NaN and Infinity (JSON writes null), a class instance such as a Date or
 * a Map (JSON writes its toJSON or {}), a getter. It sees the raw value (`this[key]`), before `toJSON`.
 */
function plainOnly(key, value) {
  const raw = this[key];
  const at = key === "" ? "the action" : key;
  if (typeof raw === "number" && !Number.isFinite(raw)) throw new Error(`${at} is ${raw}, not a JSON number`);
  if (raw !== null && typeof raw === "object") {
    const proto = Object.getPrototypeOf(raw);
    if (!Array.isArray(raw) && proto !== Object.prototype && proto !== null)
      throw new Error(`${at} is a ${proto?.constructor?.name ?? "non-plain"} object, not plain JSON`);
  }
  if (this !== undefined && key !== "") {
    const d = Object.getOwnPropertyDescriptor(this, key);
    if (d && !("value" in d)) throw new Error(`${at} is a getter, not a value`);
  }
  return value;
}

let agent;
const sessions = new Map();

async function load() {
  const mod = await importAgent();
  const value = mod.default;
  if (value === undefined || value === null) return { type: "bad", problem: "no_default" };
  if (typeof value !== "object" || typeof value.start !== "function")
    return { type: "bad", problem: "not_agent" };
  agent = value;
  return { type: "loaded", agent: typeof value.id === "string" ? value.id : "" };
}

async function handle(msg) {
  switch (msg.type) {
    case "load":
      return load();
    case "start": {
      const session = await agent.start(msg.episode);
      if (session === null || typeof session !== "object" || typeof session.act !== "function")
        return { type: "error", message: "start(episode) did not return a session {act(observation)}" };
      sessions.set(msg.session, session);
      return { type: "started" };
    }
    case "act": {
      const session = sessions.get(msg.session);
      if (!session) return { type: "error", message: "act() for a session that was never started" };
      const action = await session.act(msg.observation);
      let json;
      try {
        json = JSON.stringify(action, plainOnly);
      } catch (err) {
        return { type: "error", message: `act() returned an action that is not plain JSON: ${message(err)}` };
      }
      return { type: "action", json: json ?? "null" };
    }
    case "end": {
      const session = sessions.get(msg.session);
      sessions.delete(msg.session);
      if (typeof session?.end === "function") await session.end(msg.summary);
      return { type: "ended" };
    }
    default:
      return { type: "error", message: `unknown message ${message(msg.type)}` };
  }
}

process.on("message", (msg) => {
  Promise.resolve()
    .then(() => handle(msg))
    .then(
      (reply) => send({ ...reply, id: msg.id }),
      (err) => send({ id: msg.id, type: "error", message: message(err) }),
    )
    .catch(() => process.exit(70));
});
send({ type: "ready" });
