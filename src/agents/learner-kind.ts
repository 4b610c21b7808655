import { writeFile } from "node:fs/promises";
import path from "node:path";
import { configError } from "../core/errors.ts";
import { Rng } from "../core/rng.ts";
import type { Learner } from "../learners/learner.ts";
import type { AgentKind, ResolvedAgent } from "./resolve.ts";

const NUMERIC: Record<string, readonly string[]> = {
  q: ["alpha", "gamma", "lambda", "eps", "q0"],
  pg: ["lr", "gamma", "beta", "eps", "entropy"],
};

/**
 * `learner:q` / `learner:pg` — the reference learners (`learner.q@1`, tabular Q-learning; `learner.pg@1`,
 * a linear softmax policy trained by REINFORCE): one policy shared by every trial of a run, which
 * therefore runs its trials one at a time in manifest order (deterministic updates), learning from
 * each verdict in the session's end hook. Options as a query: `learner:q?seed=3&alpha=0.3&eps=0.1`;
 * `policy=FILE|ID` starts from a saved policy (a file, or the run's store by content hash or a unique
 * prefix of it) and plays it frozen (greedy, no updates) unless `train=1`; when the run ends, a
 * learner that trained saves its policy (plain JSON, content-hashed, with its training history) to
 * the run's store, and to `save=FILE` if given. The learners choose among admissible actions: the
 * world must declare them.
 */
export const LEARNER_AGENT_KIND: AgentKind = {
  prefix: "learner",
  description: "a reference learner (q: tabular Q-learning, pg: REINFORCE); ?seed=&policy=FILE|ID&save=FILE",
  async resolve(rest, spec, ctx): Promise<ResolvedAgent> {
    const [name = "", query = ""] = rest.split("?", 2);
    if (name !== "q" && name !== "pg")
      throw configError("bad_agent_spec", `learner:${name}: the learners are learner:q and learner:pg`);
    const params = new URLSearchParams(query);
    const known = new Set([...NUMERIC[name], "seed", "policy", "save", "train", "frozen"]);
    for (const key of params.keys())
      if (!known.has(key))
        throw configError(
          "bad_agent_spec",
          `${spec}: unknown option "${key}" (known: ${[...known].join(", ")})`,
        );
    const config: Record<string, number> = {};
    for (const key of NUMERIC[name]) {
      const raw = params.get(key);
      if (raw === null) continue;
      const value = Number(raw);
      if (!Number.isFinite(value))
        throw configError("bad_agent_spec", `${spec}: ${key}=${raw} is not a number`);
      config[key] = value;
    }
    const seed = Number(params.get("seed") ?? "0");
    if (!Number.isInteger(seed)) throw configError("bad_agent_spec", `${spec}: seed must be an integer`);
    const { Learner: Learners } = await import("../learners/learner.ts");
    const { loadPolicy, requireLearner, storedPolicy } = await import("./learner-policies.ts");
    const learnerId = name === "q" ? "learner.q@1" : "learner.pg@1";
    const policyRef = params.get("policy");
    let learner: Learner;
    if (policyRef) {
      // a file, or a stored policy by hash or unique prefix (the run's store)
      const { policy } = await loadPolicy(policyRef, ctx);
      requireLearner(policy, learnerId, spec);
      learner = Learners.restore(policy, { frozen: params.get("train") !== "1" });
    } else {
      const rng = Rng.seeded(seed, "learner");
      learner = name === "q" ? Learners.q({ rng, config }) : Learners.pg({ rng, config });
      if (params.get("frozen") === "1") learner.frozen = true;
    }
    const saveTo = params.get("save");
    const ref = { id: spec, kind: "learner", spec };
    const now = ctx.now ?? (() => new Date());
    return {
      ref,
      forWorld: () => learner,
      ordered: !learner.frozen,
      frozen: () => {
        const snapshot = Learners.restore(learner.policy(), { frozen: true });
        return { ref, forWorld: () => snapshot };
      },
      checkpoint: () => learner.policy(),
      restoreCheckpoint: (policy) => {
        requireLearner(policy, learnerId, spec);
        learner = Learners.restore(policy, { frozen: learner.frozen });
      },
      // the run has ended: a learner that trained saves its policy to the run's store (and to save=FILE)
      async finish(end) {
        const policy = learner.policy();
        if (saveTo) await writeFile(path.resolve(ctx.cwd, saveTo), `${JSON.stringify(policy, null, 2)}\n`);
        const store = ctx.policies;
        if (learner.frozen || !store) return { policy: policy.hash, saved: false };
        await store.savePolicy(
          storedPolicy(policy, {
            source: "run",
            createdAt: now().toISOString(),
            ...(end ? { experimentId: end.experimentId } : {}),
          }),
        );
        return { policy: policy.hash, saved: true };
      },
    };
  },
};
