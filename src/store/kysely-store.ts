import type { Kysely } from "kysely";
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import {
  type Attempt,
  type AttemptEnd,
  abandonRunning,
  attemptFromRow,
  insertAttempt,
  type NewAttempt,
  updateAttempt,
} from "./attempts.ts";
import { chunks, ID_CHUNK, rowsPerInsert } from "./batching.ts";
import { checkExperimentId, checkStatus, toExperiment } from "./experiment-rows.ts";
import {
  dropLease,
  type ExperimentLease,
  type LeaseRequest,
  type LeaseResult,
  readLease,
  renewLease,
  takeLease,
} from "./leases.ts";
import {
  deletePolicies,
  findPolicy,
  insertPolicy,
  listPolicyRows,
  type PolicySummary,
  type StoredPolicy,
} from "./policies.ts";
import { sealExperiment, signRows, verifyExperimentRecords } from "./record-integrity.ts";
import type { RecordVerification } from "./record-verification.ts";
import type { StoreDatabase } from "./schema.ts";
import type {
  CreateExperimentOptions,
  Experiment,
  ExperimentStatus,
  ExportOptions,
  LineWriter,
  NewExperiment,
  Store,
  TrialFilter,
  TrialSummary,
} from "./store.ts";
import { type StoreDialect, writeTransaction } from "./store-dialect.ts";
import { toStoreError, unknownExperiment } from "./store-errors.ts";
import { filterTrials, type PageCursor, readTrialPage } from "./trial-page.ts";
import {
  assembleRecord,
  rowToSummary,
  SUMMARY_COLUMNS,
  specToManifestRow,
  type TrialRows,
  trialToRows,
  validateRecord,
} from "./trial-rows.ts";
import type { WriteLock } from "./write-lock.ts";
import { insertTrialOnce } from "./write-once.ts";

export interface KyselyStoreOptions {
  /** Serializes this store's write transactions with other stores on the same database. */
  writeLock?: WriteLock;
  /** Called once, after the database is destroyed by `close()`. */
  onClose?: () => void;
  /** SQLite: how long a write retries while another process holds the write lock (then `store_busy`). */
  busyWaitMs?: number;
  /**
   * The store key (kept outside the store): every trial row written gets its HMAC and a completed
   * experiment its seal, so `verifyRecords` finds a changed, removed or inserted record. None: unsigned.
   */
  recordKey?: Buffer;
  /** Where the key came from (or was looked for), for error messages. */
  keySource?: string;
  /**
   * Without `recordKey`: the key file to read it from (a SQLite store's `<file>.key`), created for a
   * store never signed.
   */
  keyFile?: string;
}

function manifestConflict(message: string, details?: unknown): ProvingError {
  return new ProvingError("manifest_conflict", `manifest: ${message}`, { details });
}

/** The Store, written once against kysely's builder; the dialect only changes how writes begin. */
export class KyselyStore implements Store {
  readonly schemaVersion: number;
  readonly #db: Kysely<StoreDatabase>;
  readonly #dialect: StoreDialect;
  readonly #opts: KyselyStoreOptions;
  #closed = false;

  constructor(
    db: Kysely<StoreDatabase>,
    dialect: StoreDialect,
    schemaVersion: number,
    opts: KyselyStoreOptions = {},
  ) {
    this.#db = db;
    this.#dialect = dialect;
    this.schemaVersion = schemaVersion;
    this.#opts = opts;
  }

  async #run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new ProvingError("store_closed", `store: ${operation} after close()`);
    try {
      return await fn();
    } catch (err) {
      throw toStoreError(operation, err);
    }
  }

  #write<T>(fn: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return writeTransaction(this.#db, this.#dialect, fn, this.#opts.writeLock, this.#opts.busyWaitMs);
  }

  async #requireExperiment(db: Kysely<StoreDatabase>, id: string): Promise<void> {
    const row = await db.selectFrom("experiments").select("id").where("id", "=", id).executeTakeFirst();
    if (!row) throw unknownExperiment(id);
  }

  // ------------------------------------------------------------ experiments

  createExperiment(experiment: NewExperiment, opts: CreateExperimentOptions = {}): Promise<Experiment> {
    return this.#run("createExperiment", async () => {
      checkExperimentId(experiment.id);
      const status = experiment.status ?? "planned";
      checkStatus(status);
      const row = {
        id: experiment.id,
        schema_version: 1,
        created_at: experiment.createdAt,
        config: JSON.stringify(experiment.config),
        status,
      };
      return this.#write(async (trx) => {
        const result = await trx
          .insertInto("experiments")
          .values(row)
          .onConflict((oc) => oc.column("id").doNothing())
          .executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return toExperiment(row);
        if (!opts.ifNotExists) {
          throw new ProvingError("experiment_exists", `experiment "${experiment.id}" already exists`, {
            details: { experimentId: experiment.id },
          });
        }
        const existing = await trx
          .selectFrom("experiments")
          .selectAll()
          .where("id", "=", experiment.id)
          .executeTakeFirstOrThrow();
        return toExperiment(existing);
      });
    });
  }

  getExperiment(id: string): Promise<Experiment | undefined> {
    return this.#run("getExperiment", async () => {
      const row = await this.#db
        .selectFrom("experiments")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirst();
      return row && toExperiment(row);
    });
  }

  listExperiments(): Promise<Experiment[]> {
    return this.#run("listExperiments", async () => {
      const rows = await this.#db
        .selectFrom("experiments")
        .selectAll()
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toExperiment);
    });
  }

  setExperimentStatus(id: string, status: ExperimentStatus): Promise<void> {
    return this.#run("setExperimentStatus", async () => {
      checkStatus(status);
      const key = this.#opts.recordKey;
      const result = await this.#write(async (trx) => {
        const updated = await trx
          .updateTable("experiments")
          .set({ status })
          .where("id", "=", id)
          .executeTakeFirst();
        if (key && status === "completed" && Number(updated.numUpdatedRows) > 0) {
          await sealExperiment(trx, key, id, new Date().toISOString());
        }
        return updated;
      });
      if (Number(result.numUpdatedRows) === 0) throw unknownExperiment(id);
    });
  }

  // ------------------------------------------------------------ manifest

  writeManifest(experimentId: string, specs: readonly TrialSpec[]): Promise<void> {
    return this.#run("writeManifest", async () => {
      const ids = new Set<string>();
      const indexes = new Set<number>();
      for (const spec of specs) {
        if (spec.experimentId !== experimentId) {
          throw manifestConflict(
            `trial ${spec.id} belongs to experiment "${spec.experimentId}", not "${experimentId}"`,
          );
        }
        if (ids.has(spec.id)) throw manifestConflict(`trial id ${spec.id} appears twice`);
        if (indexes.has(spec.index)) throw manifestConflict(`index ${spec.index} appears twice`);
        ids.add(spec.id);
        indexes.add(spec.index);
      }
      await this.#write(async (trx) => {
        await this.#requireExperiment(trx, experimentId);
        const existing = new Map<string, { experiment_id: string; idx: number; spec: string }>();
        for (const chunk of chunks([...ids], ID_CHUNK)) {
          const rows = await trx
            .selectFrom("manifest")
            .select(["trial_id", "experiment_id", "idx", "spec"])
            .where("trial_id", "in", chunk)
            .execute();
          for (const row of rows) existing.set(row.trial_id, row);
        }
        const fresh: TrialSpec[] = [];
        for (const spec of specs) {
          const old = existing.get(spec.id);
          if (!old) {
            fresh.push(spec);
            continue;
          }
          if (old.experiment_id !== experimentId) {
            throw manifestConflict(
              `trial id ${spec.id} is already planned in experiment "${old.experiment_id}"`,
            );
          }
          if (canonicalJson(JSON.parse(old.spec)) !== canonicalJson(spec)) {
            throw manifestConflict(`trial ${spec.id} is already planned with a different spec`, {
              trialId: spec.id,
            });
          }
        }
        if (fresh.length === 0) return;
        const taken = new Set<number>();
        for (const chunk of chunks(
          fresh.map((s) => s.index),
          ID_CHUNK,
        )) {
          const rows = await trx
            .selectFrom("manifest")
            .select("idx")
            .where("experiment_id", "=", experimentId)
            .where("idx", "in", chunk)
            .execute();
          for (const row of rows) taken.add(Number(row.idx));
        }
        const clash = fresh.find((s) => taken.has(s.index));
        if (clash) throw manifestConflict(`index ${clash.index} is already planned for another trial`);
        const rows = fresh.map(specToManifestRow);
        for (const chunk of chunks(rows, rowsPerInsert(11))) {
          await trx.insertInto("manifest").values(chunk).execute();
        }
      });
    });
  }

  getManifest(experimentId: string): Promise<TrialSpec[]> {
    return this.#run("getManifest", async () => {
      await this.#requireExperiment(this.#db, experimentId);
      const rows = await this.#db
        .selectFrom("manifest")
        .select("spec")
        .where("experiment_id", "=", experimentId)
        .orderBy("idx")
        .execute();
      return rows.map((r) => JSON.parse(r.spec) as TrialSpec);
    });
  }

  // ------------------------------------------------------------ trials

  saveTrials(records: readonly TrialRecord[]): Promise<void> {
    return this.#run("saveTrials", async () => {
      if (records.length === 0) return;
      // Last record wins for a trial id that appears twice in one batch.
      const byId = new Map<string, TrialRows>();
      for (const record of records) {
        validateRecord(record);
        byId.delete(record.spec.id);
        byId.set(record.spec.id, signRows(this.#opts.recordKey, trialToRows(record)));
      }
      const all = [...byId.values()];
      const ids = [...byId.keys()];
      const experimentIds = [...new Set(all.map((r) => r.trial.experiment_id))];
      const steps = all.flatMap((r) => r.steps);
      const verdicts = all.flatMap((r) => (r.verdict ? [r.verdict] : []));

      await this.#write(async (trx) => {
        for (const chunk of chunks(experimentIds, ID_CHUNK)) {
          const found = await trx.selectFrom("experiments").select("id").where("id", "in", chunk).execute();
          const known = new Set(found.map((r) => r.id));
          const unknown = chunk.find((id) => !known.has(id));
          if (unknown !== undefined) throw unknownExperiment(unknown);
        }
        for (const chunk of chunks(ids, ID_CHUNK)) {
          await trx.deleteFrom("steps").where("trial_id", "in", chunk).execute();
          await trx.deleteFrom("verdicts").where("trial_id", "in", chunk).execute();
          await trx.deleteFrom("trials").where("trial_id", "in", chunk).execute();
        }
        for (const chunk of chunks(
          all.map((r) => r.trial),
          rowsPerInsert(25),
        )) {
          await trx.insertInto("trials").values(chunk).execute();
        }
        for (const chunk of chunks(steps, rowsPerInsert(3))) {
          await trx.insertInto("steps").values(chunk).execute();
        }
        for (const chunk of chunks(verdicts, rowsPerInsert(2))) {
          await trx.insertInto("verdicts").values(chunk).execute();
        }
      });
    });
  }

  recordTrialOnce(record: TrialRecord, attempt?: { attemptId: string; endedAt: string }): Promise<boolean> {
    return this.#run("recordTrialOnce", () =>
      this.#write(async (trx) => {
        const inserted = await insertTrialOnce(trx, record, this.#opts.recordKey);
        if (attempt) {
          await updateAttempt(trx, attempt.attemptId, {
            endedAt: attempt.endedAt,
            status: inserted ? "recorded" : "duplicate",
          });
        }
        return inserted;
      }),
    );
  }

  startAttempt(attempt: NewAttempt): Promise<void> {
    return this.#run("startAttempt", () =>
      this.#write(async (trx) => {
        // a new delivery of the trial: an earlier attempt still `running` lost its worker (killed, or
        // stopped past its lock); if that worker comes back, its end overwrites this (`duplicate`)
        await abandonRunning(trx, attempt.trialId, {
          endedAt: attempt.startedAt,
          error: `abandoned: the trial was delivered again (attempt ${attempt.attempt} on ${attempt.worker})`,
          except: attempt.attemptId,
        });
        await insertAttempt(trx, attempt);
      }),
    );
  }

  abandonAttempts(trialId: string, end: { endedAt: string; error: string }): Promise<number> {
    return this.#run("abandonAttempts", () => this.#write((trx) => abandonRunning(trx, trialId, end)));
  }

  endAttempt(attemptId: string, end: AttemptEnd): Promise<void> {
    return this.#run("endAttempt", () => this.#write((trx) => updateAttempt(trx, attemptId, end)));
  }

  listAttempts(experimentId: string, trialId?: string): Promise<Attempt[]> {
    return this.#run("listAttempts", async () => {
      let query = this.#db.selectFrom("attempts").selectAll().where("experiment_id", "=", experimentId);
      if (trialId !== undefined) query = query.where("trial_id", "=", trialId);
      const rows = await query.orderBy("started_at").orderBy("attempt").orderBy("attempt_id").execute();
      return rows.map(attemptFromRow);
    });
  }

  acquireLease(experimentId: string, req: LeaseRequest): Promise<LeaseResult> {
    return this.#run("acquireLease", () =>
      this.#write(async (trx) => {
        await this.#requireExperiment(trx, experimentId);
        return takeLease(trx, experimentId, req);
      }),
    );
  }

  renewLease(experimentId: string, holder: string, expiresAt: number): Promise<boolean> {
    return this.#run("renewLease", () =>
      this.#write((trx) => renewLease(trx, experimentId, holder, expiresAt)),
    );
  }

  releaseLease(experimentId: string, holder: string): Promise<void> {
    return this.#run("releaseLease", () => this.#write((trx) => dropLease(trx, experimentId, holder)));
  }

  getLease(experimentId: string): Promise<ExperimentLease | undefined> {
    return this.#run("getLease", () => readLease(this.#db, experimentId));
  }

  setExperimentGym(experimentId: string, gym: JsonObject): Promise<void> {
    return this.#run("setExperimentGym", () =>
      this.#write(async (trx) => {
        await this.#requireExperiment(trx, experimentId);
        const text = JSON.stringify(gym);
        await trx
          .insertInto("experiment_gyms")
          .values({ experiment_id: experimentId, gym: text })
          .onConflict((oc) => oc.column("experiment_id").doUpdateSet({ gym: text }))
          .execute();
      }),
    );
  }

  getExperimentGym(experimentId: string): Promise<JsonObject | undefined> {
    return this.#run("getExperimentGym", async () => {
      const row = await this.#db
        .selectFrom("experiment_gyms")
        .select("gym")
        .where("experiment_id", "=", experimentId)
        .executeTakeFirst();
      return row ? (JSON.parse(row.gym) as JsonObject) : undefined;
    });
  }

  getTrial(trialId: string): Promise<TrialRecord | undefined> {
    return this.#run("getTrial", async () =>
      this.#db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("trials")
          .select("record")
          .where("trial_id", "=", trialId)
          .executeTakeFirst();
        if (!row) return undefined;
        const steps = await trx
          .selectFrom("steps")
          .select("step")
          .where("trial_id", "=", trialId)
          .orderBy("idx")
          .execute();
        const verdict = await trx
          .selectFrom("verdicts")
          .select("verdict")
          .where("trial_id", "=", trialId)
          .executeTakeFirst();
        return assembleRecord(
          row.record,
          steps.map((s) => s.step),
          verdict?.verdict,
        );
      }),
    );
  }

  listTrials(experimentId: string, filter: TrialFilter = {}): Promise<TrialSummary[]> {
    return this.#run("listTrials", async () => {
      await this.#requireExperiment(this.#db, experimentId);
      const query = this.#db
        .selectFrom("trials")
        .select(SUMMARY_COLUMNS)
        .where("experiment_id", "=", experimentId)
        .orderBy("idx")
        .orderBy("trial_id");
      const rows = await filterTrials(query, filter).execute();
      return rows.map(rowToSummary);
    });
  }

  recordedTrialIds(experimentId: string): Promise<Set<string>> {
    return this.#run("recordedTrialIds", async () => {
      await this.#requireExperiment(this.#db, experimentId);
      const rows = await this.#db
        .selectFrom("trials")
        .select("trial_id")
        .where("experiment_id", "=", experimentId)
        .execute();
      return new Set(rows.map((r) => r.trial_id));
    });
  }

  missingTrials(experimentId: string): Promise<TrialSpec[]> {
    return this.#run("missingTrials", async () => {
      await this.#requireExperiment(this.#db, experimentId);
      const rows = await this.#db
        .selectFrom("manifest as m")
        .leftJoin("trials as t", (join) =>
          join.onRef("t.trial_id", "=", "m.trial_id").onRef("t.experiment_id", "=", "m.experiment_id"),
        )
        .select("m.spec")
        .where("m.experiment_id", "=", experimentId)
        .where("t.trial_id", "is", null)
        .orderBy("m.idx")
        .execute();
      return rows.map((r) => JSON.parse(r.spec) as TrialSpec);
    });
  }

  exportJsonl(experimentId: string, write: LineWriter, opts: ExportOptions = {}): Promise<number> {
    return this.#exportJsonl(experimentId, write, opts);
  }

  async #exportJsonl(experimentId: string, write: LineWriter, opts: ExportOptions): Promise<number> {
    await this.#run("exportJsonl", () => this.#requireExperiment(this.#db, experimentId));
    const pageSize = Math.max(1, Math.floor(opts.pageSize ?? 64));
    let after: PageCursor | undefined;
    let written = 0;
    for (;;) {
      const page = await this.#run("exportJsonl", () =>
        readTrialPage(this.#db, experimentId, opts, pageSize, after),
      );
      // The writer's own errors propagate as they are: they are not the store's.
      for (const record of page) {
        await write(JSON.stringify(record));
        written++;
      }
      if (page.length < pageSize) return written;
      const last = page[page.length - 1]!.spec;
      after = { idx: last.index, trialId: last.id };
    }
  }

  verifyRecords(experimentId: string, opts: { trialId?: string } = {}): Promise<RecordVerification> {
    return this.#run("verifyRecords", async () => {
      const row = await this.#db
        .selectFrom("experiments")
        .select("status")
        .where("id", "=", experimentId)
        .executeTakeFirst();
      if (!row) throw unknownExperiment(experimentId);
      return this.#db
        .transaction()
        .execute((trx) =>
          verifyExperimentRecords(trx, this.#opts.recordKey, experimentId, row.status, opts.trialId),
        );
    });
  }

  // ------------------------------------------------------------ learners' policies

  savePolicy(policy: StoredPolicy): Promise<boolean> {
    return this.#run("savePolicy", () => this.#write((trx) => insertPolicy(trx, policy)));
  }

  getPolicy(id: string): Promise<StoredPolicy> {
    return this.#run("getPolicy", () => findPolicy(this.#db, id));
  }

  listPolicies(): Promise<PolicySummary[]> {
    return this.#run("listPolicies", () => listPolicyRows(this.#db));
  }

  dropPolicies(experimentId: string, sourcePrefix: string, keep: readonly string[]): Promise<number> {
    return this.#run("dropPolicies", () =>
      this.#write((trx) => deletePolicies(trx, experimentId, sourcePrefix, keep)),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#db.destroy();
    } finally {
      this.#opts.onClose?.();
    }
  }
}
