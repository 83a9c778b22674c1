/**
 * The values of a repeatable query parameter that may also be comma-joined (`?type=a&type=b,c`):
 * split, trimmed, empty ones dropped. Telemetry event filters and audit-log filters read lists this way.
 */
export function queryList(values: readonly string[] | undefined): string[] {
  if (!values) return [];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}
