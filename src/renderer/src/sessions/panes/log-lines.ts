/**
 * The Logs pane's lines as data: the level a line reads as (service logs carry it as text —
 * Chromium's `ERROR:`, `[warn]`, `level=error` — not as a field), the level and search filter,
 * and the text a download saves.
 */

export type LogLevel = 'error' | 'warn' | 'info';
/** What the level filter keeps: every line, warnings and errors, or errors only. */
export type LevelFilter = 'all' | 'warn' | 'error';

export interface LogLine {
  timestamp: string;
  message: string;
  level: LogLevel;
}

const ERROR = /\b(error|err|fatal|panic|exception|failed|failure|crash(ed)?)\b|\bE\d{4}\b|:ERROR:/i;
const WARN = /\b(warn(ing)?|deprecated)\b|:WARNING:/i;

export function logLevel(message: string): LogLevel {
  if (ERROR.test(message)) return 'error';
  if (WARN.test(message)) return 'warn';
  return 'info';
}

export function matches(line: LogLine, level: LevelFilter, search: string): boolean {
  if (level === 'error' && line.level !== 'error') return false;
  if (level === 'warn' && line.level === 'info') return false;
  const q = search.trim().toLowerCase();
  return !q || line.message.toLowerCase().includes(q);
}

/** The lines as a `.log` file: one per line, its timestamp first. */
export function logFileText(lines: readonly LogLine[]): string {
  return lines.map((l) => `${l.timestamp} ${l.message}\n`).join('');
}
