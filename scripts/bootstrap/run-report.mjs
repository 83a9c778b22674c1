/**
 * A vitest reporter that writes what `npm test`'s summary reads: per test module its project,
 * file, seconds (environment, import, setup files, hooks and tests: what the module cost its
 * worker) and the failures in it. vitest's own JSON report names no project, and one file runs in
 * two (`integration` on SQLite, `integration-pg` on PostgreSQL) in the same run. The file it
 * writes is the path in BROWSERDECK_RUN_REPORT (a reporter given on the command line takes no
 * options); without it, the reporter does nothing. The summary reads it back with readRunReport()
 * (failed-tests.mjs, slowest-files.mjs).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The reporter arguments that make vitest write the run report (to BROWSERDECK_RUN_REPORT), beside the usual output. */
export function runReportArgs() {
  return ['--reporter=default', `--reporter=${fileURLToPath(import.meta.url)}`];
}

/** The report, or null when it is missing or unreadable (vitest died before writing it). */
export function readRunReport(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** What a project's files run on, as the summary names it: unit tests, or the database of an integration project. */
export function databaseOf(project) {
  if (project === 'unit') return 'unit tests';
  return project.startsWith('integration-pg') ? 'PostgreSQL' : 'SQLite';
}

const message = (e) => String(e?.stack ?? e?.message ?? e ?? '');

/** One module of the report: what moduleSummary() reads from vitest's TestModule. */
export function moduleSummary(m) {
  const d = m.diagnostic();
  const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
  return {
    project: m.project.name,
    file: m.moduleId,
    seconds: ms / 1000,
    state: m.state(),
    errors: m.errors().map(message),
    failed: [...m.children.allTests('failed')].map((t) => ({ name: t.fullName, error: message(t.result().errors?.[0]) })),
  };
}

export default class RunReport {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.BROWSERDECK_RUN_REPORT;
    if (!file) return;
    fs.writeFileSync(file, JSON.stringify({ modules: testModules.map(moduleSummary), unhandledErrors: unhandledErrors.map(message) }, null, 1));
  }
}
