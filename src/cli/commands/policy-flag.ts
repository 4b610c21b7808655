/**
 * `--policy FILE|ID` of `proving run`: the agent that plays a saved learner policy frozen. A file is
 * imported into the run's store first (content-addressed: nothing changes if it is there), so the
 * experiment names the policy by its hash and any later run can play it by id.
 */
import { learnerKindOf, loadPolicy, storedPolicy } from "../../agents/learner-policies.ts";
import { configError } from "../../core/errors.ts";
import { withStore } from "../context.ts";

/** The `--agent` spec that plays the policy `ref` frozen (`learner:q?policy=HASH`). */
export async function policyAgentSpec(
  ref: string,
  flags: { store?: string; agent?: string[] },
  now: () => Date = () => new Date(),
): Promise<string> {
  if (flags.agent?.length)
    throw configError(
      "bad_flag",
      "--policy names the agent (the saved policy's learner, played frozen): drop --agent, or use --agent learner:q?policy=ID",
    );
  return withStore(flags.store, "write", async (store) => {
    const { policy, from } = await loadPolicy(ref, { cwd: process.cwd(), policies: store });
    if (from === "file")
      await store.savePolicy(storedPolicy(policy, { source: "import", createdAt: now().toISOString() }));
    return `learner:${learnerKindOf(policy)}?policy=${policy.hash}`;
  });
}
