/** Reading run-report.mjs's file, for the summary's lists of slow and failed files. */
import fs from 'node:fs';

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
