/** One trial verify found wrong, and why. */
export interface RecordProblem {
  trialId: string;
  problem: string;
}

/**
 * What `Store.verifyRecords` found in one experiment. `changed`: a row whose record, steps or verdict
 * no longer match its MAC, or whose summary columns (outcome, passed, ...) disagree with its record.
 * `removed`: trials the experiment's seal lists with no row. `inserted`: rows that are not planned in
 * the manifest, or not in the seal and with no valid MAC. `unsigned`: rows with no MAC (written
 * before the store had a key). `unsealed`: validly signed rows recorded after the seal.
 */
export interface RecordVerification {
  experimentId: string;
  status: string;
  /** The store signs its records (it was opened with a key). */
  keyed: boolean;
  /** The experiment has a seal (written when it completed) and the seal's own MAC holds. */
  sealed: boolean;
  /** Trial rows read. */
  checked: number;
  /** Rows with a valid MAC and summary. */
  valid: number;
  changed: RecordProblem[];
  removed: RecordProblem[];
  inserted: RecordProblem[];
  unsigned: string[];
  unsealed: string[];
  /** Problems of the experiment as a whole (a changed or missing seal). */
  experiment: string[];
  /** Nothing changed, removed or inserted (unsigned rows do not count: see `strict`). */
  ok: boolean;
}
