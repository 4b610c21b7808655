/** The sandbox that runs untrusted code for worlds (isolated-vm), injected into the worlds that need it. */
export { HARNESS_SOURCE } from "./harness-source.ts";
export { isolateSandbox, type SandboxLimits } from "./isolate-sandbox.ts";
