/**
 * The slowest test files of a vitest run, for the summary: where the suite's time goes is the first
 * thing to know before making it faster. Reads the run's report (run-report.mjs): one list per
 * database, since the same file may run on both.
 */
import path from 'node:path';
import { readRunReport, databaseOf } from './run-report.mjs';

/** `{ title, lines }` per group of projects in the report, each with up to `n` lines `  12.3 s  test/…`, slowest first. */
export function slowestFiles(reportFile, root, n = 15) {
  const groups = new Map();
  for (const m of readRunReport(reportFile)?.modules ?? []) {
    const key = databaseOf(m.project);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  return [...groups].map(([title, modules]) => ({
    title,
    lines: modules
      .filter((m) => Number.isFinite(m.seconds))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, n)
      .map((m) => `${m.seconds.toFixed(1).padStart(7)} s  ${path.relative(root, m.file)}`),
  }));
}
