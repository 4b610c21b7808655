import { createHmac } from "node:crypto";

/** The stored texts of one trial that its MAC covers (exactly as saved: no re-serialisation). */
export interface TrialTexts {
  trialId: string;
  experimentId: string;
  /** The record JSON (`trials.record`: the TrialRecord without steps and verdict). */
  record: string;
  /** The step JSONs, in step order. */
  steps: readonly string[];
  verdict: string | null | undefined;
}

function hmac(key: Buffer, parts: readonly (string | null)[]): string {
  const mac = createHmac("sha256", key);
  // each part framed by its byte length (null as "-"), so no two part lists give the same input
  for (const part of parts) {
    if (part === null) mac.update("-;");
    else
      mac
        .update(`${Buffer.byteLength(part)}:`)
        .update(part)
        .update(";");
  }
  return mac.digest("hex");
}

/**
 * HMAC-SHA256 of one trial's record, steps and verdict under the store key. The record holds the
 * spec (trial id, experiment id, manifest index), so a record moved to another trial or experiment
 * fails too; the summary columns are checked against the record on verify.
 */
export function trialMac(key: Buffer, t: TrialTexts): string {
  return hmac(key, ["proving-trial@1", t.trialId, t.experimentId, t.record, t.verdict ?? null, ...t.steps]);
}

/** The MAC of an experiment's seal: the ids of the trials recorded when it completed, in index order. */
export function sealMac(key: Buffer, experimentId: string, trialIds: readonly string[]): string {
  return hmac(key, ["proving-seal@1", experimentId, ...trialIds]);
}

/** Names a key without revealing it (stored in the store, so a wrong key is told from a changed record). */
export function storeKeyId(key: Buffer): string {
  return hmac(key, ["proving-key-id@1"]).slice(0, 16);
}
