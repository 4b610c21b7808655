/**
 * Test-only script: records the verdicts of selftest, audit and the quality gate on every world in
 * `verdicts.fixture.json` (run once, before the presets became one checker; run again only to accept
 * a deliberate change). `node --import tsx test/testing/record-verdicts.ts`
 */
import fs from "node:fs";
import { auditEnvironment } from "../../src/audit/index.ts";
import { gateTask } from "../../src/curriculum/index.ts";
import { runSelftest } from "../../src/testing/index.ts";
import { collectVerdicts } from "./verdicts.ts";

const verdicts = await collectVerdicts({ runSelftest, auditEnvironment, gateTask });
fs.writeFileSync(
  new URL("./verdicts.fixture.json", import.meta.url),
  `${JSON.stringify(verdicts, null, 1)}\n`,
);
