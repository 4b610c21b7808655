import { after, before } from "node:test";
import { type PostgresServer, postgresSkip, startPostgres } from "../support/services.ts";
import { storeContract } from "./contract.ts";
import { integrityContract } from "./integrity-contract.ts";
import { policyContract } from "./policy-contract.ts";

const skip = postgresSkip();
let server: PostgresServer | undefined;
before(async () => {
  if (!skip) server = await startPostgres();
});
after(async () => {
  await server?.destroy();
});

const postgres = {
  fresh: () => {
    if (!server) throw new Error("postgres did not start");
    return server.createDatabase();
  },
};
storeContract("postgres", postgres, skip);
policyContract("postgres", postgres, skip);
integrityContract("postgres", postgres, skip);
