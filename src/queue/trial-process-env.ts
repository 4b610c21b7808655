/**
 * What `startTrialWorker` puts in the environment of its trial processes (the sandboxed processor the
 * gym provides), and the processor reads back: the store URL, the worker name, the cwd, the LLM budget.
 */
export const STORE_ENV = "PROVING_QUEUE_STORE";
export const WORKER_ENV = "PROVING_QUEUE_WORKER";
export const CWD_ENV = "PROVING_QUEUE_CWD";
/** JSON `{url, requestsPerWindow, tokensPerWindow, windowMs}`: the global LLM budget through Redis. */
export const LLM_LIMIT_ENV = "PROVING_QUEUE_LLM_LIMIT";
