#!/usr/bin/env node
// The `proving` CLI. An installed package has no src/ and runs the built JavaScript in dist/ (tsx
// loads only if an agent module is a .ts file). In a checkout (src/ beside bin/) it runs the
// TypeScript source through tsx instead, so `npx proving`, `node bin/proving.mjs` and the tests'
// CLI helper never run a stale build; `node dist/cli/main.js` runs the build (`npm run build`).
import fs from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
if (fs.existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import("../dist/cli/main.js");
}
