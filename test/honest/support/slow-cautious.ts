/**
 * A module agent (`--agent ./test/honest/support/slow-cautious.ts`): device-support's known-good
 * `cautious` policy, answering each act() after a short real delay ($PROVING_TEST_ACT_DELAY_MS, default
 * 8 ms), so a run of a hundred trials takes a few seconds and can be killed in the middle.
 * Deterministic: the delay changes no action.
 */
import type { Agent } from "../../../src/core/contracts.ts";
import { DEVICE_SUPPORT_POLICIES } from "../../../src/worlds/device-support/policies.ts";

const inner = DEVICE_SUPPORT_POLICIES.cautious;
const delayMs = Number(process.env.PROVING_TEST_ACT_DELAY_MS ?? 8);

const agent: Agent = {
  id: "slow-cautious",
  async start(episode) {
    const session = await inner.start(episode);
    return {
      async act(observation) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return session.act(observation);
      },
    };
  },
};

export default agent;
