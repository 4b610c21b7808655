/** Whether a `--store` value names a Postgres database (`postgres://` or `postgresql://`) rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A store location safe to print: a Postgres URL without its password. */
export function redactStoreUrl(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://(unparseable url)";
  }
}
