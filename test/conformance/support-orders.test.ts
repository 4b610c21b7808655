/** support-orders@1 (device-support → order-ops through a Link layer) passes the conformance checks. */
import { defaultGym } from "../../src/gym/index.ts";
import { checkEnvironment } from "../../src/testing/index.ts";
import { conformanceTest } from "./conformance-test.ts";

const gym = defaultGym();
conformanceTest("support-orders@1", () =>
  checkEnvironment(gym.world("support-orders@1"), { restore: gym.registry, expectBackgroundJobs: true }),
);
