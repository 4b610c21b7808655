/** code-repair@1 passes the conformance checks every world passes (`checkEnvironment`, src/testing). */
import { defaultGym } from "../../src/gym/index.ts";
import { checkEnvironment } from "../../src/testing/index.ts";
import { conformanceTest } from "./conformance-test.ts";

const gym = defaultGym();
conformanceTest("code-repair@1", () =>
  checkEnvironment(gym.world("code-repair@1"), { restore: gym.registry, seeds: [0, 1] }),
);
