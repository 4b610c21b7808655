import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Budget, TrialRecord } from "../core/contracts.ts";
import type { JsonValue } from "../core/json.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { VariantSpec } from "../harness/variant.ts";
import { parseExperiment } from "../runner/experiment.ts";
import { runExperiment } from "../runner/run.ts";
import type { RunParts } from "../runner/run-parts.ts";
import type { Store } from "../store/store.ts";

/** Who plays a batch of rollouts. */
export type Player = "target" | "known_good";

/** One batch of fresh rollouts: families × difficulties × `trials` seeds from `seed`. */
export interface RolloutRequest {
  /** Experiment id (the store keeps the batch under it). */
  id: string;
  /** Absent: the base world. */
  variant?: VariantSpec;
  /** Absent or empty: every family of the world. */
  families?: string[];
  difficulties: number[];
  trials: number;
  seed: number;
  player: Player;
}

/** Where the rigger's rollouts come from (the gym's runner, or a stand-in in tests). */
export interface Rollouts {
  readonly world: WorldDefinition;
  run(request: RolloutRequest): Promise<TrialRecord[]>;
  /** The variant's id as the runner records it (the harness's, over the normalized spec); default `variantId`. */
  variantId?(variant: VariantSpec): string;
}

export interface GymRolloutsOptions {
  world: string;
  target: ResolvedAgent;
  /** Default: the world's known-good scripted policy. */
  knownGood?: ResolvedAgent;
  store?: Store;
  cwd?: string;
  budget?: Partial<Budget>;
  concurrency?: number;
}

/**
 * Rollouts through the gym's runner (`runExperiment`): each batch is an experiment of its own (recorded
 * in the store when one is given, so every trial the rigger cites can be opened), with the variant as
 * the experiment's one variant, exactly as `proving run --variant` would run it.
 */
export async function gymRollouts(run: RunParts, o: GymRolloutsOptions): Promise<Rollouts> {
  const world = run.registry.world(o.world);
  const cwd = o.cwd ?? process.cwd();
  const knownGood = o.knownGood ?? (await run.resolveAgent(world.knownGood, { cwd, worlds: [world] }));
  return {
    world,
    variantId: (variant) => run.variantId(variant),
    async run(req) {
      const agent = req.player === "target" ? o.target : knownGood;
      const config = parseExperiment({
        id: req.id,
        worlds: [world.id],
        ...(req.families?.length ? { families: req.families } : {}),
        difficulties: req.difficulties,
        agents: [agent.ref.spec],
        trials: req.trials,
        seed: req.seed,
        ...(req.variant ? { variants: [req.variant as unknown as JsonValue] } : {}),
        ...(o.budget ? { budget: o.budget } : {}),
        ...(o.concurrency ? { concurrency: o.concurrency } : {}),
      });
      const records: TrialRecord[] = [];
      await runExperiment(config, {
        ...run,
        agents: [agent],
        cwd,
        ...(o.store ? { store: o.store } : {}),
        onTrial: (record) => records.push(record),
      });
      const order = new Map<string, number>();
      for (const r of records) order.set(r.spec.id, r.spec.index);
      return records.sort((a, b) => a.spec.index - b.spec.index);
    },
  };
}
