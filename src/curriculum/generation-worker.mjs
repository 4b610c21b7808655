// The worker thread that pre-generates curriculum tasks (src/curriculum/generation-thread.ts), off the
// run's thread: it rebuilds the gym from its description (`loadGym`, plugins included), then answers
// each request with `generateOne`'s outcome. A generator that hangs only hangs this thread; the
// parent stops it after its timeout and starts another for the remaining requests.
// Plain JavaScript: when no built `.js` is beside it, tsx is registered in this thread and the
// TypeScript sources (and TypeScript plugins) are imported through it.

import { parentPort, workerData } from "node:worker_threads";

async function importModule(name) {
  try {
    return await import(new URL(`${name}.js`, import.meta.url).href);
  } catch (err) {
    if (err?.code !== "ERR_MODULE_NOT_FOUND") throw err;
    // the source tree: register tsx in this thread, so the gym's TypeScript plugins load too
    if (!registered) {
      const { register } = await import("tsx/esm/api");
      register();
      registered = true;
    }
    return import(new URL(`${name}.ts`, import.meta.url).href);
  }
}

let registered = false;

const { loadGym } = await importModule("../gym/load-gym");
const { generateOne } = await importModule("./generation-batch");
const gym = await loadGym(workerData.description, { cwd: workerData.cwd });
const clock = () => performance.now();

parentPort.on("message", async (request) => {
  try {
    const outcome = await generateOne(gym.world(request.key.world), request, {
      clock,
      ...(workerData.budgetMs !== undefined ? { budgetMs: workerData.budgetMs } : {}),
    });
    parentPort.postMessage(JSON.parse(JSON.stringify(outcome)));
  } catch (err) {
    parentPort.postMessage({
      request,
      verdict: { status: "failed", reason: `generation failed: ${err?.message ?? String(err)}` },
      ms: 0,
    });
  }
});
parentPort.postMessage({ ready: true });
