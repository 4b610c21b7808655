import type { Command } from "commander";
import { printJson, withStore } from "../context.ts";
import { experimentOrLatest } from "./export.ts";

interface VerifyFlags {
  store?: string;
  json?: boolean;
  strict?: boolean;
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description(
      "check an experiment's records against their MACs (the store key, kept beside the store or in $PROVING_STORE_KEY), the manifest and the experiment's seal: exit 0 when they verify, 1 when a record was changed, removed or inserted",
    )
    .argument("[experiment]", "experiment id (default: the newest)")
    .option(
      "--store <path>",
      "SQLite store or postgres://... (default .proving/proving.db, or $PROVING_STORE)",
    )
    .option("--json", "print the verification as one JSON document")
    .option("--strict", "unsigned records (written before the store had a key) fail too")
    .action(async (id: string | undefined, flags: VerifyFlags) => {
      const { renderVerification, verificationFailed } = await import(
        "../../report/record-verification-text.ts"
      );
      await withStore(flags.store, "read", async (store) => {
        const v = await store.verifyRecords(await experimentOrLatest(store, id));
        const failed = verificationFailed(v, flags.strict);
        if (flags.json) printJson({ ...v, ok: !failed });
        else process.stdout.write(`${renderVerification(v, flags.strict)}\n`);
        if (failed) process.exitCode = 1;
      });
    });
}
