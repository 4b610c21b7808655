/**
 * The rigger's shared contract: what a diagnosis, a candidate and a designer are.
 * Stable once committed: fields are added, never renamed. Plain data only (JSON-safe).
 */
import type { ToolDescriptor, ToolResult } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { LayerSpec, VariantSpec } from "../harness/variant.ts";

/** The environment-contract axis a weakness touches. */
export type Axis = "start_state" | "action" | "observation" | "transition";

/** Where a pattern shows: one trial and the (agent) step indices of its trace. */
export interface Evidence {
  trialId: string;
  steps: number[];
}

/**
 * A named weakness read from trajectories and verdicts (never from the agent's words). `pattern` is an
 * id of the pattern catalogue (e.g. `retry-new-key-after-timeout`); `violations` are verifier violation
 * codes seen in the evidence trials.
 */
export interface Diagnosis {
  pattern: string;
  axis: Axis;
  families: string[];
  difficulties: number[];
  violations: string[];
  evidence: Evidence[];
  /** One line for people and designers: what the agent did wrong. */
  summary?: string;
  /** Detector-specific, data-only facts (e.g. `{tool: "refund_order"}`), used by templates and designers. */
  facts?: JsonObject;
  /** How many of the analysed trials show the pattern, of how many. */
  support?: { trials: number; of: number };
}

/** Who proposed a candidate: `template` or `llm:SPEC`. */
export type DesignerId = string;

/** A layer-only proposal (templates, or a designer that only writes layer specs). */
export interface LayersProposal {
  kind: "layers";
  /** Layers added on top of the base world (innermost first). */
  layers: LayerSpec[];
  /** Template id (`template.<name>@<version>`) when a template wrote it. */
  template?: string;
  rationale: string;
  /**
   * Tunable intensity: `layer` index in `layers` and the numeric `param` the rigger may bisect in
   * [`min`, `max`] on REFINE (e.g. a fault's `times`).
   */
  knob?: { layer: number; param: string; min: number; max: number; integer?: boolean };
}

/**
 * A generated-code proposal: TypeScript source of a rule (the rule API in `DesignerInput.ruleApi`).
 * The code path (`src/rigger/code/`, on the runtime of `src/rules/`) compiles it and turns it into a
 * rule layer referenced by content hash (e.g. `{id: "rule.generated@1", params: {code, sha256}}`), or
 * into failure records.
 */
export interface CodeProposal {
  kind: "code";
  /** TypeScript source of the rule module. */
  source: string;
  /** Extra layers placed before (inside) the generated rule, e.g. a Setup. */
  layers?: LayerSpec[];
  rationale: string;
}

export type Proposal = LayersProposal | CodeProposal;

/** A truncated trajectory as a designer reads it. */
export interface TrajectoryExcerpt {
  trialId: string;
  outcome: string;
  family: string;
  difficulty: number;
  steps: { index: number; tool: string; args: JsonObject; result: ToolResult | JsonValue }[];
  /** Steps left out (the excerpt keeps the first and last ones). */
  omitted: number;
  violations: string[];
}

/** Everything a designer is told. */
export interface DesignerInput {
  world: string;
  diagnosis: Diagnosis;
  trajectories: { shortestSuccess?: TrajectoryExcerpt; longestFailure?: TrajectoryExcerpt };
  tools: ToolDescriptor[];
  /** JSON Schema (or a JSON sample, when the world declares no schema) of the world's state view. */
  stateSchema: JsonObject;
  /** The rule API, as text a designer reads (hooks, RuleState, blocked(), directives). */
  ruleApi: string;
  /** What a variant must not do (make the task unsolvable, reach the verifier, add a reward, ...). */
  prohibitions: string[];
  /** Ids of the built-in layers a layers proposal may use, with their param descriptions. */
  layerCatalogue?: { id: string; description: string; params?: JsonObject }[];
}

/** A failure of generated code, written for the designer to repair it. */
export interface CodeFailure {
  stage: "compile" | "load" | "timeout" | "memory" | "throw" | "escape" | "mutation" | "invalid_result";
  hook?: string;
  message: string;
  codeHash?: string;
}

/** Why a proposal needs repair: code failures, or a validation that did not accept it. */
export interface RepairRequest {
  proposal: Proposal;
  reason: string;
  codeFailures?: CodeFailure[];
  validation?: ValidationResult;
}

export interface Designer {
  readonly id: DesignerId;
  propose(input: DesignerInput): Promise<Proposal[]>;
  repair(input: DesignerInput, failure: RepairRequest): Promise<Proposal[]>;
}

/**
 * Turns a code proposal into a variant layer (the code path provides it). `ok: false` carries failure
 * records, never throws for bad code.
 */
export type CodeRealizer = (
  proposal: CodeProposal,
) => Promise<{ ok: true; layer: LayerSpec; codeHash: string } | { ok: false; failures: CodeFailure[] }>;

/** A target interval and sample counts of one validation. */
export interface RateEstimate {
  trials: number;
  passed: number;
  rate: number;
  ci: [number, number];
}

export type Decision = "ACCEPT" | "REFINE" | "REJECT";

/** What validating one candidate found. */
export interface ValidationResult {
  target: RateEstimate;
  knownGood: { trials: number; passed: number };
  /** The verifier id the variant reported equals the base world's. */
  verifierUnchanged: boolean;
  /** The target's outcomes differ from the base's (pass rates, by a test). */
  changesOutcomes: boolean;
  /** The sequential rule stopped early: `inside`, `outside`, or ran out of rollouts (`undecided`). */
  stop: "inside" | "outside" | "undecided" | "unsolvable";
}

/** One candidate variant and, once validated, its decision. */
export interface Candidate {
  /** A spec `proving run --variant` accepts as it is. */
  variant: VariantSpec;
  variantId: string;
  /** Ids of the layers the candidate adds (innermost first). */
  layers: string[];
  designer: DesignerId;
  template?: string;
  codeHash?: string;
  /** The diagnosis pattern the candidate exercises. */
  pattern: string;
  decision?: Decision;
  reason?: string;
  validation?: ValidationResult;
  /** REFINE steps that led here (e.g. bisected intensities), oldest first. */
  refinements?: string[];
}
