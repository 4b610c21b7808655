/** support-orders@1 (device-support → order-ops through a Link layer) passes the conformance suite. */
import { defaultRegistry } from "../../src/worlds/index.ts";
import { conformanceSuite } from "./suite.ts";

const registry = defaultRegistry();
conformanceSuite(registry.world("support-orders@1"), { registry, expectBackgroundJobs: true });
