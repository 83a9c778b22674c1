/**
 * Reads one string field of a value whose shape is not known where it is read: a hook that
 * runs for every route sees `req.params` / `req.body` of whichever route matched.
 */
export function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
}
