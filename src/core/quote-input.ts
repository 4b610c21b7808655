/**
 * Quotes a value a caller sent inside a message, cut to `max` characters: an error about a 900 KB
 * id names the id's start and its length, never the whole of it.
 */
export function quoteInput(value: unknown, max = 80): string {
  const text = typeof value === "string" ? value : String(value);
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length} characters)`;
}
