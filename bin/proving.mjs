#!/usr/bin/env node
// The `proving` CLI. An installed package has no src/ and runs the built JavaScript in dist/ (tsx
// loads only if an agent module is a .ts file). In a checkout (src/ beside bin/) it runs the
// TypeScript source through tsx instead, so `npx proving`, `node bin/proving.mjs` and the tests'
// CLI helper never run a stale build; `node dist/cli/main.js` runs the build (`npm run build`).
import { spawn } from "node:child_process";
import fs from "node:fs";

// isolated-vm (the code-repair sandbox) wants V8 started without Node's startup snapshot. Without
// `--no-node-snapshot` on this process, run the CLI again in a child that has it (in NODE_OPTIONS,
// so its own children have it too); the child ends when this process does, even by SIGKILL.
const FLAG = "--no-node-snapshot";
const hasFlag =
  process.execArgv.includes(FLAG) || (process.env.NODE_OPTIONS ?? "").split(/\s+/).includes(FLAG);

if (!hasFlag) {
  const env = {
    ...process.env,
    PROVING_WRAPPED: "1",
    NODE_OPTIONS: `${FLAG} ${process.env.NODE_OPTIONS ?? ""}`.trim(),
  };
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env,
  });
  const forward = (sig) => child.kill(sig);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, forward);
  child.on("exit", (code, signal) => {
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.off(sig, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  if (process.env.PROVING_WRAPPED === "1" && process.channel) {
    // started by the wrapper above: end with it (the IPC channel closes when the parent dies)
    process.on("disconnect", () => process.exit(130));
    process.channel.unref();
  }
  const source = new URL("../src/cli/main.ts", import.meta.url);
  if (fs.existsSync(source)) {
    const { register } = await import("tsx/esm/api");
    register();
    await import(source.href);
  } else {
    await import("../dist/cli/main.js");
  }
}
