/** device-support@2 (a simulated customer) passes the conformance checks every world passes. */
import { defaultGym } from "../../src/gym/index.ts";
import { checkEnvironment } from "../../src/testing/index.ts";
import { conformanceTest } from "./conformance-test.ts";

const gym = defaultGym();
conformanceTest("device-support@2", () =>
  checkEnvironment(gym.world("device-support@2"), { restore: gym.registry, expectBackgroundJobs: true }),
);
