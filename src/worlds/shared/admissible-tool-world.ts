import type {
  AdmissibleAction,
  AdmissibleActions,
  AdmissibleCanonicalForm,
  EnvironmentCapabilities,
  UnseenCall,
} from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { parseToolArgs } from "../../core/tool.ts";
import { ToolWorld, type ToolWorldDefinition, type ToolWorldState } from "../../core/tool-world.ts";
import {
  type AdmissibleSpec,
  admissibleCalls,
  canonicalAdmissible,
  canonicalFormOf,
  waitDurations,
} from "./admissible-actions.ts";
import { SeenValues, type TextExtractor } from "./seen-values.ts";

/** What a tool world declares about its admissible actions: the list's spec and any text extractors. */
export interface AdmissibleDeclaration extends AdmissibleSpec {
  /** Values pulled out of the texts observations showed (fields named `text`), by argument name. */
  extractors?: Readonly<Record<string, TextExtractor>>;
}

/**
 * What the agent of a tool world has seen: the first observation's context and every traced call
 * with the answer it received (the trace keeps the answer as delivered, after any layer changed it).
 */
export function seenInToolWorld<S extends ToolWorldState>(
  def: ToolWorldDefinition<S>,
  state: S,
  declaration: AdmissibleDeclaration,
  unseen: readonly UnseenCall[] = [],
): SeenValues {
  // the calls a layer answered are counted as the latest: where they fell among these is not known here
  return new SeenValues(
    def.taskContext(state),
    [...state.trace.map((t) => ({ tool: t.tool, args: t.args, result: t.result })), ...unseen],
    declaration.extractors,
  );
}

/**
 * A tool world that declares admissible actions (`capabilities.admissible`): the list is built by
 * `admissibleCalls` from the tools' JSON Schemas, what the agent has seen and the world's
 * declaration; every call passes the world's own argument check. Derived from the saved state
 * (context and trace), so a restored world gives the same list. Empty once the episode has ended.
 */
export class AdmissibleToolWorld<S extends ToolWorldState> extends ToolWorld<S> implements AdmissibleActions {
  override readonly capabilities: EnvironmentCapabilities = {
    inspection: this,
    delivery: this,
    timeControl: this,
    admissible: this,
  };
  private readonly spec_: AdmissibleSpec;
  private readonly form: AdmissibleCanonicalForm;

  constructor(
    private readonly definition: ToolWorldDefinition<S>,
    private readonly declaration: AdmissibleDeclaration = {},
  ) {
    super(definition);
    this.spec_ = {
      ...declaration,
      args: { "wait.seconds": { build: waitDurations }, ...declaration.args },
    };
    this.form = canonicalFormOf(this.spec_);
  }

  admissibleActions(unseen: readonly UnseenCall[] = []): AdmissibleAction[] {
    const s = this.state;
    if (s.ended) return [];
    const tools = new Map(this.definition.tools.map((t) => [t.name, t]));
    const valid = (name: string, args: JsonObject) => {
      const tool = tools.get(name);
      return tool !== undefined && parseToolArgs(tool, args).ok;
    };
    return admissibleCalls(
      this.spec.tools,
      seenInToolWorld(this.definition, s, this.declaration, unseen),
      this.spec_,
      valid,
    );
  }

  canonicalAction(
    action: { tool: string; args: JsonObject },
    unseen?: readonly UnseenCall[],
  ): AdmissibleAction {
    return canonicalAdmissible(action, this.admissibleActions(unseen), this.form);
  }

  canonicalForm(): AdmissibleCanonicalForm {
    return this.form;
  }
}
