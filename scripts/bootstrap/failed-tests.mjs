/**
 * What failed in a vitest pass, as a few lines for the run's summary. CI shows only the tail of a
 * long log, and the SQLite pass's failures scroll far above it: the summary must name them itself.
 * Reads vitest's JSON report (`--reporter=json --outputFile.json=…`).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The reporter arguments that make vitest write its JSON report to `file`, beside the usual output. */
export function jsonReportArgs(file) {
  return ['--reporter=default', '--reporter=json', `--outputFile.json=${file}`];
}

// vitest colours its messages; the summary is read as plain text.
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');

const firstLines = (text, n) =>
  String(text ?? '')
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(0, n);

/** Lines naming each failed test (file, full name, the first lines of its error); [] when the report is missing. */
export function failedTests(reportFile, root) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  } catch {
    return [];
  }
  const lines = [];
  for (const file of report.testResults ?? []) {
    const rel = path.relative(root, file.name ?? '');
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) {
      lines.push(`× ${rel} › ${a.fullName}`);
      for (const l of firstLines((a.failureMessages ?? [])[0], 3)) lines.push(`    ${l}`);
    }
    // A file that failed outside any test (an import error, a hook that threw).
    if (file.status === 'failed' && failed.length === 0) {
      lines.push(`× ${rel}`);
      for (const l of firstLines(file.message, 4)) lines.push(`    ${l}`);
    }
  }
  return lines;
}
