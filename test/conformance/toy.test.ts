/**
 * The conformance suite is generic: the toy test world (test/support/toy-world.ts), which has
 * background jobs, save/restore and scripted policies of its own, passes it too.
 */
import { TOY_ID, toyRegistry } from "../support/toy-world.ts";
import { conformanceSuite } from "./suite.ts";

const registry = toyRegistry();
conformanceSuite(registry.world(TOY_ID), { registry, expectBackgroundJobs: true, fuzzPerTool: 300 });
