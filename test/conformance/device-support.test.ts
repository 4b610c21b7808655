/** device-support@1 passes the conformance suite every world must pass (see suite.ts). */
import { defaultRegistry } from "../../src/worlds/index.ts";
import { conformanceSuite } from "./suite.ts";

const registry = defaultRegistry();
conformanceSuite(registry.world("device-support@1"), { registry, expectBackgroundJobs: true });
