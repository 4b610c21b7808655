/**
 * What the code-repair world needs from a sandbox, as types only: the world is pure and gets a
 * `CodeSandbox` injected (`codeRepairWorld(sandbox)`); the isolated-vm implementation lives in
 * `src/sandbox/`. A run is a function of its request: the same files and tests give the same result.
 */

/** One test file to run: its workspace-relative path (for `require` resolution) and its source. */
export interface SandboxTestFile {
  path: string;
  source: string;
}

export interface SandboxRequest {
  /** The workspace: path → content. Only `.js` files are modules `require` can load. */
  files: Record<string, string>;
  /** The test files to run, in order (the visible ones from the workspace, or the verifier's hidden ones). */
  tests: SandboxTestFile[];
}

export interface SandboxTestResult {
  file: string;
  name: string;
  passed: boolean;
  error?: string;
}

/**
 * What workspace code reached for: `process` (and other host globals), `require` of anything outside
 * the workspace (`fs`, `node:child_process`, `http`, ...), `import`, or breaking the run's limits.
 */
export interface SandboxEscape {
  kind: "global" | "require" | "import" | "timeout" | "memory_limit";
  detail: string;
}

export interface SandboxRun {
  /** `ok`: the run finished (tests may have failed); `timeout`/`memory_limit`: a limit stopped it. */
  status: "ok" | "timeout" | "memory_limit";
  tests: SandboxTestResult[];
  escapes: SandboxEscape[];
}

export interface CodeSandbox {
  /** What runs the code, e.g. `isolated-vm` with its limits. */
  readonly id: string;
  /** Synchronous: a fresh isolate per run, disposed afterwards. Never throws for what the code does. */
  run(request: SandboxRequest): SandboxRun;
}
