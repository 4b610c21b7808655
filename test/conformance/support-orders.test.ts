/** support-orders@1 (device-support → order-ops through a Link layer) passes the conformance suite. */
import { defaultGym } from "../../src/gym/index.ts";
import { conformanceSuite } from "./suite.ts";

const registry = defaultGym().registry;
conformanceSuite(registry.world("support-orders@1"), { registry, expectBackgroundJobs: true });
