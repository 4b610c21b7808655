/** The flags of `proving curriculum run|review|report` and of `proving run --split`, as commander parses them. */
import type { BudgetFlags } from "../agent-store-options.ts";

export interface CurriculumFlags extends BudgetFlags {
  world?: string[];
  agent?: string;
  episodes?: number;
  strategy?: string;
  seed?: number;
  evalEvery?: number;
  id?: string;
  splits?: string;
  snapshotEvery?: number;
  horizon?: string;
  difficulty?: boolean;
  store?: string;
  json?: boolean;
  storedVariants?: boolean;
  pool?: number;
  poolId?: string;
  poolTimeoutMs?: number;
  requireReview?: boolean;
  /** A saved learner policy (file, or stored hash / prefix) to play frozen: the run's agent. */
  policy?: string;
}

export interface ReviewFlags {
  pool: string;
  variants?: boolean;
  world?: string[];
  splits?: string;
  seed?: number;
  perKey?: number;
  sample?: number;
  approve?: string[];
  reject?: string[];
  note?: string;
  store?: string;
  json?: boolean;
}

/** The flags of `proving run --split NAME` it reads. */
export interface SplitRunFlags extends BudgetFlags {
  split: string;
  splits?: string;
  agent?: string[];
  world?: string[];
  seed?: number;
  trials?: number;
  id?: string;
  store?: string;
  json?: boolean;
}

export interface CurriculumReportFlags {
  out?: string;
  window?: number;
  store?: string;
  json?: boolean;
}
