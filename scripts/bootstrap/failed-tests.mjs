/**
 * What failed in a vitest run, as a few lines for the summary. CI shows only the tail of a long
 * log, and the failures scroll far above it: the summary must name them itself, and on which
 * database each failed. Reads the run's report (run-report.mjs).
 */
import path from 'node:path';
import { readRunReport, databaseOf } from './run-report.mjs';

// vitest colours its messages; the summary is read as plain text.
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');

const firstLines = (text, n) =>
  String(text ?? '')
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(0, n);

/** Lines naming each failed test (file, database, full name, the first lines of its error); [] when the report is missing. */
export function failedTests(reportFile, root) {
  const report = readRunReport(reportFile);
  if (!report) return [];
  const lines = [];
  for (const m of report.modules ?? []) {
    const where = `${path.relative(root, m.file)} (${databaseOf(m.project)})`;
    for (const t of m.failed ?? []) {
      lines.push(`× ${where} › ${t.name}`);
      for (const l of firstLines(t.error, 3)) lines.push(`    ${l}`);
    }
    // A module that failed outside any test (an import error, a hook that threw).
    if (m.state === 'failed' && !(m.failed ?? []).length) {
      lines.push(`× ${where}`);
      for (const l of firstLines(m.errors?.[0], 4)) lines.push(`    ${l}`);
    }
  }
  for (const e of report.unhandledErrors ?? []) {
    lines.push('× unhandled error');
    for (const l of firstLines(e, 4)) lines.push(`    ${l}`);
  }
  return lines;
}
