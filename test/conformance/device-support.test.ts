/** device-support@1 passes the conformance checks every world passes (`checkEnvironment`, src/testing). */
import { defaultGym } from "../../src/gym/index.ts";
import { checkEnvironment } from "../../src/testing/index.ts";
import { conformanceTest } from "./conformance-test.ts";

const gym = defaultGym();
conformanceTest("device-support@1", () =>
  checkEnvironment(gym.world("device-support@1"), { restore: gym.registry, expectBackgroundJobs: true }),
);
