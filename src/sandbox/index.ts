/** The sandboxes that run untrusted code (isolated-vm): one isolate host, and the code sandbox injected into the worlds that need it. */
export { HARNESS_SOURCE } from "./harness-source.ts";
export {
  type BrokenLimit,
  disposeIsolate,
  ISOLATED_VM,
  type Isolate,
  type IsolateContext,
  type IsolateHost,
  type IsolateHostOptions,
  type IsolateScript,
  isolateHost,
} from "./isolate-host.ts";
export { isolateSandbox, type SandboxLimits } from "./isolate-sandbox.ts";
