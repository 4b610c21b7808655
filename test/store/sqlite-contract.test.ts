import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import { storeContract } from "./contract.ts";
import { integrityContract } from "./integrity-contract.ts";
import { policyContract } from "./policy-contract.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-contract-sqlite-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

const sqlite = { fresh: async () => path.join(dir, `case-${++n}`, "proving.db") };
storeContract("sqlite", sqlite);
policyContract("sqlite", sqlite);
integrityContract("sqlite", sqlite);
