/** A served run (`proving serve --store`) is refused by resume with a plain reason, not a schema error. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { resumeExperiment } from "../../src/runner/resume.ts";
import { openStore } from "../../src/store/open-store.ts";

test("resume of a served experiment says its episodes were played by clients", async () => {
  const store = await openStore(":memory:");
  try {
    await store.createExperiment({
      id: "serve-x",
      config: { id: "serve-x", kind: "serve", world: "device-support@1", maxSteps: 200 },
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    await assert.rejects(
      resumeExperiment("serve-x", { ...defaultGym().runOptions(), store }),
      (err: unknown) =>
        err instanceof ProvingError && err.code === "bad_experiment" && /proving serve/.test(err.message),
    );
  } finally {
    await store.close();
  }
});
