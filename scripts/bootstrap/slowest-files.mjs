/**
 * The slowest test files of a vitest pass, for the run's summary: where the suite's time goes is
 * the first thing to know before making it faster, and the per-file figures are otherwise lost
 * with the JSON report. Reads vitest's JSON report (`startTime`/`endTime` per file, in ms).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Up to `n` lines `  12.3 s  test/…` for the slowest files of the report; [] when it is missing. */
export function slowestFiles(reportFile, root, n = 15) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  } catch {
    return [];
  }
  return (report.testResults ?? [])
    .filter((f) => Number.isFinite(f.startTime) && Number.isFinite(f.endTime))
    .map((f) => ({ file: path.relative(root, f.name ?? ''), seconds: (f.endTime - f.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, n)
    .map((f) => `${f.seconds.toFixed(1).padStart(7)} s  ${f.file}`);
}
