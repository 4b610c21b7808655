/** order-ops@1 passes the conformance suite every world must pass (see suite.ts). */
import { defaultGym } from "../../src/gym/index.ts";
import { conformanceSuite } from "./suite.ts";

const registry = defaultGym().registry;
conformanceSuite(registry.world("order-ops@1"), { registry, expectBackgroundJobs: true });
