/**
 * The error catalogue: every code the gym raises, with exactly one fault and a one-line meaning.
 *
 * - `ERROR_CATALOGUE`: the codes of thrown `ProvingError`s. A `ProvingError` takes its fault from
 *   here, so a code cannot be raised with two faults; a code missing from the table does not compile.
 * - `WIRE_ERRORS`: the codes a `proving serve` server answers with (OpenEnv's, plus HTTP-only ones),
 *   with their HTTP status. A client turns a reply into the `remote_*` ProvingError named here; the
 *   status decides the fault (a 4xx is the caller's, a 5xx or a network failure is infrastructure).
 * - `TOOL_ERRORS` (`tool-error-catalogue.ts`): the codes of error observations an agent receives
 *   from a tool. They are observations, not exceptions: they never end a trial and have no fault.
 *
 * `docs/errors.md` is this file as tables (`renderErrorDoc()`); a test keeps the two equal and checks
 * that every code raised in `src/` is here and every entry here is raised somewhere.
 */

/** Who is at fault when something goes wrong. */
export type Fault = "config" | "agent" | "world" | "infrastructure" | "internal";

export const FAULTS: readonly Fault[] = ["config", "agent", "world", "infrastructure", "internal"];

/** Who each fault blames. */
export const FAULT_MEANINGS: Readonly<Record<Fault, string>> = {
  config: "the experiment, flags, files or environment given to the gym, or a request its caller sent",
  agent: "the agent broke its side of the contract (a crash, a malformed action, a disconnect)",
  world: "the world (or a layer on it) threw",
  infrastructure: "a service the gym relies on: an LLM provider, a remote server, the store",
  internal: "a bug in the gym",
};

export interface ErrorEntry {
  readonly fault: Fault;
  readonly meaning: string;
}

/** Codes of thrown errors (`ProvingError`), grouped by fault. */
export const ERROR_CATALOGUE = {
  // ---- config: the experiment, flags, files or environment given to the gym are wrong
  bad_gym: {
    fault: "config",
    meaning: "a gym description that is not valid (fields, schema version, prices)",
  },
  bad_gym_plugin: {
    fault: "config",
    meaning:
      "a gym plugin module cannot be loaded, or its default export is not `{worlds?, rules?, handoffs?, agentKinds?}`",
  },
  duplicate_gym_part: {
    fault: "config",
    meaning: "two sources of a gym (built-ins, plugins) provide parts with one id",
  },
  unknown_gym_part: {
    fault: "config",
    meaning: "a gym description names a world, rule, hand-off or agent kind that nothing provides",
  },
  bad_agent_kind: {
    fault: "config",
    meaning: "an agent kind whose prefix is malformed or taken by a built-in kind",
  },
  bad_agent_module: {
    fault: "config",
    meaning: "an agent module cannot be loaded, or its default export is not an Agent `{id, start}`",
  },
  bad_agent_option: {
    fault: "config",
    meaning: "an LLM agent option (`?key=value`) is unknown, out of range or names an unreadable file",
  },
  bad_agent_spec: {
    fault: "config",
    meaning: "an `--agent` spec is malformed (no command, no model name, a URL that is not http(s))",
  },
  bad_check_options: {
    fault: "config",
    meaning: "`checkEnvironment` options it cannot use (a factory without `options.world`, no seeds)",
  },
  bad_audit_options: {
    fault: "config",
    meaning: "`proving audit` options it cannot use (no seeds, a target that is no world, variant or URL)",
  },
  bad_difficulty: { fault: "config", meaning: "a difficulty the world or the family does not have" },
  bad_experiment: {
    fault: "config",
    meaning: "an experiment definition does not match the experiment schema",
  },
  bad_file: { fault: "config", meaning: "a file was read but its JSON or YAML cannot be parsed" },
  bad_flag: { fault: "config", meaning: "a command-line flag has a bad value or clashes with another flag" },
  bad_handoff: {
    fault: "config",
    meaning: "a Link's hand-off does not connect the two worlds the Link joins",
  },
  bad_layer_params: { fault: "config", meaning: "a layer's params do not match that layer's schema" },
  bad_param: { fault: "config", meaning: "a task parameter override is malformed" },
  bad_price: {
    fault: "config",
    meaning: "an LLM price (an override or the `PROVING_LLM_PRICES` file) is malformed or unreadable",
  },
  bad_rule_id: { fault: "config", meaning: "a rule id is not of the form `rule.<name>@<version>`" },
  bad_script: { fault: "config", meaning: "a fake-LLM script file is malformed" },
  bad_seed: { fault: "config", meaning: "a seed that is not an integer" },
  bad_skill_bank: {
    fault: "config",
    meaning: "a skill bank file is unreadable or does not match the skill bank schema",
  },
  embedding_model_mismatch: {
    fault: "config",
    meaning:
      "a skill bank built with one embedding model (or dimensions) was queried with another; rebuild the bank",
  },
  bad_task_id: {
    fault: "config",
    meaning: "a task id not of the form `<world@version>/<family>/d<difficulty>/s<seed>`",
  },
  bad_template: { fault: "config", meaning: "an LLM prompt template uses an unknown placeholder" },
  bad_variant: {
    fault: "config",
    meaning: "a harness variant is not valid JSON/YAML or not a valid variant",
  },
  capability_missing: {
    fault: "config",
    meaning:
      "a rule needs a capability (virtual-time control, a registry for shadow copies) its world does not offer",
  },
  duplicate_agent: { fault: "config", meaning: "two agents of an experiment have the same id" },
  duplicate_agent_kind: { fault: "config", meaning: "two agent kinds of a gym have the same prefix" },
  duplicate_handoff: { fault: "config", meaning: "two hand-offs of a gym have the same id" },
  duplicate_rule: { fault: "config", meaning: "two rules of a gym have the same id" },
  duplicate_trial: { fault: "config", meaning: "an experiment plans the same trial twice" },
  duplicate_variant: { fault: "config", meaning: "an experiment lists the same variant twice" },
  duplicate_world: { fault: "config", meaning: "two worlds of a gym have the same id" },
  empty_experiment: { fault: "config", meaning: "the experiment has no planned trials" },
  experiment_conflict: {
    fault: "config",
    meaning: "an experiment with this id is stored with a different plan",
  },
  experiment_exists: { fault: "config", meaning: "an experiment with this id is stored already" },
  experiment_live: {
    fault: "config",
    meaning:
      "another live process holds the experiment's lease (running, resuming or following it); --force takes over a dead one's",
  },
  invalid_experiment_id: {
    fault: "config",
    meaning: "an experiment id that is empty, too long or not printable",
  },
  invalid_experiment_status: { fault: "config", meaning: "an experiment status that is not a known one" },
  manifest_conflict: {
    fault: "config",
    meaning: "a manifest write disagrees with the manifest stored for the experiment",
  },
  manifest_too_large: {
    fault: "config",
    meaning: "the experiment plans more trials than one manifest holds (MAX_MANIFEST_TRIALS, 1,000,000)",
  },
  missing_api_key: { fault: "config", meaning: "the environment variable holding an LLM API key is not set" },
  missing_world: { fault: "config", meaning: "`serve` was given neither `--world` nor `--variant`" },
  optional_dependency_missing: {
    fault: "config",
    meaning:
      "a feature needs an optional dependency that is not installed (`npm install --omit=optional`); the message names the package",
  },
  no_experiments: { fault: "config", meaning: "the store holds no experiment yet" },
  no_store: { fault: "config", meaning: "there is no store file at the given path" },
  not_comparable: {
    fault: "config",
    meaning: "two experiments cannot be compared pair by pair (different tasks, seeds or budgets)",
  },
  nothing_to_compare: { fault: "config", meaning: "two experiments have no trials in common to pair" },
  nothing_to_replay: {
    fault: "config",
    meaning: "the trial never reached its world, so there is nothing to replay",
  },
  remote_world_mismatch: {
    fault: "config",
    meaning: "the remote server serves another world than the one the experiment names",
  },
  setup_ended_episode: { fault: "config", meaning: "a step replayed by a Setup layer ended the episode" },
  setup_failed: { fault: "config", meaning: "a step replayed by a Setup layer answered an error" },
  store_key_invalid: {
    fault: "config",
    meaning:
      "the store key (the `.key` file beside a SQLite store, or PROVING_STORE_KEY) is unreadable or too short",
  },
  store_key_mismatch: {
    fault: "config",
    meaning: "the store key given is not the key the store's records are signed with",
  },
  store_key_missing: {
    fault: "config",
    meaning:
      "the store's records are signed but its key is missing (the `.key` file beside a SQLite store, or PROVING_STORE_KEY)",
  },
  store_schema_too_new: { fault: "config", meaning: "the store was written by a newer build of the gym" },
  unknown_agent: { fault: "config", meaning: "an agent name or agent kind that nothing resolves" },
  unknown_experiment: { fault: "config", meaning: "no experiment with this id in the store" },
  unknown_family: { fault: "config", meaning: "a task family the world does not have" },
  unknown_handoff: { fault: "config", meaning: "a Link names a hand-off that is not registered" },
  unknown_layer: {
    fault: "config",
    meaning: "a variant names a layer (rule, setup, link) that is not registered",
  },
  unknown_param: { fault: "config", meaning: "a task parameter override the family does not tune" },
  unknown_script: { fault: "config", meaning: "a fake-LLM `policy:NAME` script names no scripted policy" },
  unknown_state_type: { fault: "config", meaning: "a saved state whose type has no registered factory" },
  unknown_trial: { fault: "config", meaning: "no trial with this id in the store" },
  unknown_policy: {
    fault: "config",
    meaning: "no learner policy with this hash (or hash prefix) in the store, and no such file",
  },
  ambiguous_policy: {
    fault: "config",
    meaning: "a policy id (a hash prefix) that names several stored policies",
  },
  policy_mismatch: {
    fault: "config",
    meaning: "a saved policy of another learner than the one named (a learner.pg@1 policy for learner:q)",
  },
  bad_policy: { fault: "config", meaning: "a learner policy that is not one (its hash, learner or format)" },
  unknown_world: { fault: "config", meaning: "a world id that is not registered" },
  unreadable_file: { fault: "config", meaning: "a file named on the command line cannot be read" },
  variant_mismatch: {
    fault: "config",
    meaning: "a trial's variant id or world does not match the layers recorded for it",
  },
  variant_needs_harness: {
    fault: "config",
    meaning: "replaying a trial played on a variant needs the harness that builds the variant",
  },
  variant_world_mismatch: { fault: "config", meaning: "a variant is built on another world than `--world`" },
  variants_unsupported: {
    fault: "config",
    meaning: "variants were given but no harness is available to build them",
  },
  wrong_world: { fault: "config", meaning: "a task was given to a world it is not for" },
  // curriculum (src/curriculum)
  bad_sampler_option: { fault: "config", meaning: "a curriculum sampler option is out of range" },
  bad_sampler_snapshot: {
    fault: "config",
    meaning: "a sampler snapshot of another strategy or key space, or malformed",
  },
  bad_split_file: { fault: "config", meaning: "a split file (regression, dynamic, heldout) is malformed" },
  bad_task_key: { fault: "config", meaning: "a task key is not `{world, family, difficulty, variant?}`" },
  curriculum_conflict: {
    fault: "config",
    meaning:
      "a curriculum run with this id exists with other settings; resume it as it is or choose another id",
  },
  curriculum_not_served: {
    fault: "config",
    meaning: "a served curriculum's task space has keys of another world or variant than the one served",
  },
  duplicate_task_key: { fault: "config", meaning: "a task space lists one task key twice" },
  empty_task_space: { fault: "config", meaning: "a curriculum has no task key it may sample" },
  unknown_curriculum_run: { fault: "config", meaning: "no curriculum run with this id in the store" },
  unknown_review_item: {
    fault: "config",
    meaning: "a curriculum review names an item that is not in the pool (or not an accepted variant)",
  },
  unknown_split: { fault: "config", meaning: "a split name the split file does not declare" },
  unknown_strategy: { fault: "config", meaning: "a curriculum strategy name that is not known" },
  unknown_task_key: { fault: "config", meaning: "a result for a task key outside the sampler's space" },
  // the server refused the request (a 4xx): the caller sent something wrong
  remote_forbidden_host: {
    fault: "config",
    meaning: "the server answered FORBIDDEN_HOST (403): the Host header does not name the server",
  },
  remote_forbidden_origin: {
    fault: "config",
    meaning: "the server answered FORBIDDEN_ORIGIN (403): a cross-site Origin it does not allow",
  },
  remote_invalid_json: {
    fault: "config",
    meaning: "the server answered INVALID_JSON (400): the request was not JSON",
  },
  remote_not_found: {
    fault: "config",
    meaning: "the server answered NOT_FOUND (404): no such route (a wrong URL)",
  },
  remote_rejected: {
    fault: "config",
    meaning: "the server refused the request with a 4xx this catalogue has no code for",
  },
  remote_session_error: {
    fault: "config",
    meaning: "the server answered SESSION_ERROR (404/409): no such episode, or it has ended or was reclaimed",
  },
  remote_unauthorized: {
    fault: "config",
    meaning: "the server answered UNAUTHORIZED (401): a missing or wrong bearer token",
  },
  remote_unknown_type: {
    fault: "config",
    meaning: "the server answered UNKNOWN_TYPE (400): a WebSocket message of an unknown type",
  },
  remote_validation_error: {
    fault: "config",
    meaning: "the server answered VALIDATION_ERROR (422): a request field is missing or out of range",
  },

  // ---- agent: the agent broke its side of the contract (the trial is `agent_error`)
  agent_disconnected: { fault: "agent", meaning: "the MCP client playing a trial disconnected mid-episode" },
  agent_exited: {
    fault: "agent",
    meaning: "a `cmd-jsonl:` agent program exited or closed its stdout mid-episode",
  },
  bad_action_line: { fault: "agent", meaning: "a `cmd-jsonl:` agent wrote a line that is not a JSON action" },
  no_tool_call: {
    fault: "agent",
    meaning: "an LLM answered without a tool call more often than the agent nudges it",
  },
  provider_bad_request: {
    fault: "agent",
    meaning: "the LLM provider rejected the agent's request as invalid (a 4xx other than 401/403/404/429)",
  },
  remote_payload_too_large: {
    fault: "agent",
    meaning:
      "the server answered PAYLOAD_TOO_LARGE (413, or WebSocket close 1009): an action too big to send",
  },
  session_ended: {
    fault: "agent",
    meaning: "the trial ended while the LLM agent waited on its provider (the reason its call is aborted)",
  },

  // ---- world: the world (or a layer on it) is at fault
  generated_rule_failed: {
    fault: "world",
    meaning: "a generated rule's hook broke a sandbox limit, threw, escaped, mutated or returned a bad shape",
  },
  world_crashed: {
    fault: "world",
    meaning:
      "the world threw during reset, step or evaluate; the trial is `infra_error` and its record blames the world",
  },
  not_conformant: {
    fault: "world",
    meaning: "the environment failed conformance checks (`assertConformant` lists every failed check)",
  },

  // ---- infrastructure: a service the gym relies on failed (the trial is `infra_error`)
  provider_aborted: {
    fault: "infrastructure",
    meaning: "an LLM call was aborted before the provider answered",
  },
  provider_auth: {
    fault: "infrastructure",
    meaning: "the LLM provider refused the API key (401/403), or no key could be loaded",
  },
  provider_bad_response: {
    fault: "infrastructure",
    meaning: "the LLM provider's reply could not be parsed or was empty, after retries",
  },
  provider_network: {
    fault: "infrastructure",
    meaning: "the LLM provider could not be reached, after retries",
  },
  provider_not_found: {
    fault: "infrastructure",
    meaning: "the LLM provider answered 404 (an unknown model or endpoint)",
  },
  provider_overloaded: {
    fault: "infrastructure",
    meaning: "the LLM provider stayed overloaded (503/529), after retries",
  },
  provider_rate_limited: {
    fault: "infrastructure",
    meaning: "the LLM provider kept answering 429, after retries",
  },
  provider_server_error: {
    fault: "infrastructure",
    meaning: "the LLM provider kept failing (5xx, 408, 409), after retries",
  },
  provider_timeout: {
    fault: "infrastructure",
    meaning: "the LLM provider did not answer within the per-call timeout, after retries",
  },
  remote_bad_response: {
    fault: "infrastructure",
    meaning: "a `proving serve` server sent a reply the client cannot read (not JSON, wrong message type)",
  },
  remote_capacity_reached: {
    fault: "infrastructure",
    meaning: "the server answered CAPACITY_REACHED (503): every session slot is in use",
  },
  remote_connection_closed: {
    fault: "infrastructure",
    meaning: "the WebSocket connection to the server closed before the reply",
  },
  remote_episode_ended: {
    fault: "infrastructure",
    meaning: "a remote environment was stepped after its remote episode had ended",
  },
  remote_execution_error: {
    fault: "infrastructure",
    meaning: "the server answered EXECUTION_ERROR (500): the served world failed",
  },
  remote_no_verdict: {
    fault: "infrastructure",
    meaning: "the remote verdict was asked for before the step that ends the episode",
  },
  remote_not_deterministic: {
    fault: "infrastructure",
    meaning: "the remote server started the same task and seed in a different state",
  },
  remote_server_error: {
    fault: "infrastructure",
    meaning: "the server failed with a 5xx, or answered an error this catalogue does not know without a 4xx",
  },
  sandbox_failed: {
    fault: "infrastructure",
    meaning:
      "the code sandbox (isolated-vm) failed for a reason other than the code's own time or memory limit",
  },
  sandbox_unavailable: {
    fault: "infrastructure",
    meaning: "the code sandbox's native module isolated-vm cannot be loaded (not installed or not built)",
  },
  remote_task_mismatch: {
    fault: "infrastructure",
    meaning: "the remote server built another task for the same family, difficulty and seed",
  },
  remote_timeout: {
    fault: "infrastructure",
    meaning: "the server did not answer within the client's timeout",
  },
  remote_unreachable: {
    fault: "infrastructure",
    meaning: "the server could not be reached (connection refused or reset, DNS, TLS)",
  },
  store_busy: {
    fault: "infrastructure",
    meaning:
      "another process held the SQLite store's write lock past the store's limit (busyTimeoutMs, 60 s; retried with backoff until then)",
  },
  store_corrupt: {
    fault: "infrastructure",
    meaning:
      "the SQLite store file is damaged (PRAGMA quick_check on open); restore a backup or `.recover` it",
  },
  store_failed: { fault: "infrastructure", meaning: "a store operation failed in the database driver" },
  store_open_failed: { fault: "infrastructure", meaning: "the store file cannot be opened or migrated" },
  trial_not_started: {
    fault: "infrastructure",
    meaning: "an MCP-served trial ended before its episode started (its world or store failed)",
  },

  // ---- internal: a bug in the gym
  bad_elapse: { fault: "internal", meaning: "a layer asked a world to let a negative or NaN time elapse" },
  curriculum_history_diverged: {
    fault: "internal",
    meaning:
      "replaying a curriculum run's history drew another key than the one recorded (the sampler is not deterministic)",
  },
  run_history_diverged: {
    fault: "internal",
    meaning: "a learner playing a resumed run's recorded trials again ended one otherwise than recorded",
  },
  curriculum_history_gap: {
    fault: "internal",
    meaning: "a curriculum run's stored history misses an episode",
  },
  curriculum_feedback_failed: {
    fault: "internal",
    meaning: "feeding a served episode's result to the served curriculum failed (the server goes on)",
  },
  invalid_trial_record: {
    fault: "internal",
    meaning: "a trial record that does not match the record schema",
  },
  no_inspection: {
    fault: "internal",
    meaning: "code that needs inspection ran on an environment that declares none",
  },
  recorder_not_open: {
    fault: "internal",
    meaning: "a trial recorder was used before its experiment was opened",
  },
  no_snapshot: { fault: "internal", meaning: "a rule layer asked for a state snapshot it never took" },
  not_reset: { fault: "internal", meaning: "an environment was stepped or observed before its first reset" },
  store_closed: { fault: "internal", meaning: "the store was used after `close()`" },
  wrong_state_type: {
    fault: "internal",
    meaning: "a world's restore factory was handed a saved state of another type",
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type FaultOf<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C]["fault"];
/** The codes whose fault is `F` (what `configError` accepts, for instance). */
export type CodeWithFault<F extends Fault> = {
  [C in ErrorCode]: FaultOf<C> extends F ? C : never;
}[ErrorCode];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

export function faultOf(code: ErrorCode): Fault {
  return ERROR_CATALOGUE[code].fault;
}

export interface WireErrorEntry {
  /** The HTTP status the server answers it with. */
  readonly status: number;
  /** The ProvingError a client raises when a server answers it (with a status of the same class). */
  readonly remote: ErrorCode;
  readonly meaning: string;
}

/**
 * The codes of `proving serve` error replies: OpenEnv's WebSocket codes plus the HTTP-only ones
 * (`{message, code, ...}` as an HTTP body or the `data` of a WS `error` message).
 */
export const WIRE_ERRORS = {
  INVALID_JSON: { status: 400, remote: "remote_invalid_json", meaning: "the body or message is not JSON" },
  UNKNOWN_TYPE: {
    status: 400,
    remote: "remote_unknown_type",
    meaning: "a WebSocket message of an unknown type",
  },
  VALIDATION_ERROR: {
    status: 422,
    remote: "remote_validation_error",
    meaning: "a field is missing, malformed or out of range (reset params, episode_id, the action's shape)",
  },
  EXECUTION_ERROR: {
    status: 500,
    remote: "remote_execution_error",
    meaning: "task generation, reset, step or evaluation failed on the server",
  },
  CAPACITY_REACHED: {
    status: 503,
    remote: "remote_capacity_reached",
    meaning: "every session slot is in use (HTTP `Retry-After: 1`; WebSocket close 1013)",
  },
  SESSION_ERROR: {
    status: 409,
    remote: "remote_session_error",
    meaning:
      "no episode yet, the episode has ended, or the session was closed or reclaimed (404: unknown id)",
  },
  UNAUTHORIZED: { status: 401, remote: "remote_unauthorized", meaning: "a missing or wrong bearer token" },
  FORBIDDEN_HOST: {
    status: 403,
    remote: "remote_forbidden_host",
    meaning: "the Host header does not name this loopback server (DNS-rebinding guard)",
  },
  FORBIDDEN_ORIGIN: {
    status: 403,
    remote: "remote_forbidden_origin",
    meaning:
      "a request or WebSocket upgrade whose Origin is not allowed (`--allow-origin`); requests without Origin pass",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    remote: "remote_payload_too_large",
    meaning: "the request body is over the server's limit",
  },
  NOT_FOUND: { status: 404, remote: "remote_not_found", meaning: "no such route" },
} as const satisfies Record<string, WireErrorEntry>;

export type WireErrorCode = keyof typeof WIRE_ERRORS;

export function isWireErrorCode(code: string): code is WireErrorCode {
  return Object.hasOwn(WIRE_ERRORS, code);
}

/** Whose fault a server's error status is: a 4xx is the caller's, anything else the infrastructure's. */
export function callerFaulted(status: number): boolean {
  return status >= 400 && status < 500;
}
