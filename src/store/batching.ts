/** Bound parameters per statement: well under SQLite's 32766 and Postgres' 65535. */
const MAX_PARAMS = 8000;

/** Ids per `in (...)` list. */
export const ID_CHUNK = 500;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Rows per multi-row insert for a table with `columns` columns. */
export function rowsPerInsert(columns: number): number {
  return Math.max(1, Math.floor(MAX_PARAMS / columns));
}
