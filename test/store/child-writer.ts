/**
 * Child process for the multi-process test: opens the store at argv[2] and saves trials
 * argv[4]..argv[5] (exclusive) of experiment argv[3], one transaction each.
 */
import { openStore } from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

const [file, experimentId, from, to] = process.argv.slice(2);
const store = await openStore(file!);
for (let i = Number(from); i < Number(to); i++) {
  await store.saveTrials([makeRecord(makeSpec(experimentId!, i), { steps: 5 })]);
}
await store.close();
