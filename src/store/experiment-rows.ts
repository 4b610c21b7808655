/** An experiment's row as the store's `Experiment`, and the checks its id and status pass on the way in. */
import type { Selectable } from "kysely";
import { ProvingError } from "../core/errors.ts";
import type { ExperimentsTable } from "./schema.ts";
import { EXPERIMENT_STATUSES, type Experiment, type ExperimentStatus } from "./store.ts";

const EXPERIMENT_ID_MAX = 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function toExperiment(row: Selectable<ExperimentsTable>): Experiment {
  return {
    id: row.id,
    schemaVersion: 1,
    createdAt: row.created_at,
    config: JSON.parse(row.config),
    status: row.status as ExperimentStatus,
  };
}

export function checkExperimentId(id: unknown): asserts id is string {
  if (typeof id !== "string" || id === "" || id.length > EXPERIMENT_ID_MAX || CONTROL_CHARS.test(id)) {
    throw new ProvingError(
      "invalid_experiment_id",
      `invalid experiment id ${JSON.stringify(id)}: want 1-${EXPERIMENT_ID_MAX} printable characters`,
    );
  }
}

export function checkStatus(status: unknown): asserts status is ExperimentStatus {
  if (!(EXPERIMENT_STATUSES as readonly unknown[]).includes(status)) {
    throw new ProvingError(
      "invalid_experiment_status",
      `invalid experiment status ${JSON.stringify(status)}: want one of ${EXPERIMENT_STATUSES.join(", ")}`,
    );
  }
}
