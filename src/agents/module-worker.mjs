// The worker thread a module agent runs in (src/agents/isolated-module-agent.ts): out of the
// runner's reach. It imports the agent module, starts one session, and answers each observation
// with the action as a JSON string (so whatever the agent returned — a Proxy, a getter, a cycle, a
// BigInt — is turned into plain data here, in the agent's own thread, or reported as its error).
// Plain JavaScript on purpose: it runs without tsx (the built package, a CLI that registered tsx
// only on its own thread); a `.ts` agent is imported through tsx's tsImport.

import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";

const TYPESCRIPT = /\.[cm]?ts$/;

async function importAgent(file) {
  const url = pathToFileURL(file).href;
  let mod;
  try {
    mod = await import(url);
  } catch (err) {
    if (!TYPESCRIPT.test(file) || err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
    const { tsImport } = await import("tsx/esm/api");
    mod = await tsImport(url, import.meta.url);
  }
  const inner = mod.default;
  return inner !== null && typeof inner === "object" && inner.__esModule === true ? inner : mod;
}

const message = (err) => {
  try {
    if (err instanceof Error) return String(err.message);
    return typeof err === "string" ? err : (JSON.stringify(err) ?? String(err));
  } catch {
    return "a value that cannot be shown";
  }
};

const post = (msg) => parentPort.postMessage(msg);

/**
 * A JSON.stringify replacer that refuses what JSON would silently change (as the runner refuses it
 * from an in-process agent): NaN and Infinity (JSON writes null), a class instance such as a Date or
 * a Map (JSON writes its toJSON or {}), a getter. It sees the raw value
 * (`this[key]`), before `toJSON`.
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
let session;

async function load() {
  const mod = await importAgent(workerData.file);
  const value = mod.default;
  if (value === undefined || value === null) return { type: "bad", problem: "no_default" };
  if (typeof value !== "object" || typeof value.start !== "function")
    return { type: "bad", problem: "not_agent" };
  agent = value;
  return { type: "loaded", id: typeof value.id === "string" ? value.id : "" };
}

async function handle(msg) {
  switch (msg.type) {
    case "load":
      return load();
    case "start":
      session = await agent.start(msg.episode);
      if (session === null || typeof session !== "object" || typeof session.act !== "function")
        return { type: "error", message: "start(episode) did not return a session {act(observation)}" };
      return { type: "started" };
    case "act": {
      const action = await session.act(msg.observation);
      let json;
      try {
        json = JSON.stringify(action, plainOnly);
      } catch (err) {
        return { type: "error", message: `act() returned an action that is not plain JSON: ${message(err)}` };
      }
      return { type: "action", json: json ?? "null" };
    }
    case "end":
      if (typeof session?.end === "function") await session.end(msg.summary);
      return { type: "ended" };
    default:
      return { type: "error", message: `unknown message ${message(msg.type)}` };
  }
}

parentPort.on("message", (msg) => {
  Promise.resolve()
    .then(() => handle(msg))
    .then(post, (err) => post({ type: "error", message: message(err) }))
    .catch((err) => post({ type: "error", message: `cannot answer: ${message(err)}` }));
});
