/**
 * The conformance checks are generic: the toy test world (test/support/toy-world.ts), which has
 * background jobs, save/restore and scripted policies of its own, passes them too — restored through
 * its own `restore` (no registry given).
 */
import { checkEnvironment } from "../../src/testing/index.ts";
import { TOY_ID, toyWorld } from "../support/toy-world.ts";
import { conformanceTest } from "./conformance-test.ts";

conformanceTest(TOY_ID, () => checkEnvironment(toyWorld(), { expectBackgroundJobs: true, fuzzPerTool: 300 }));
