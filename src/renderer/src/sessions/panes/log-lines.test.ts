import { describe, expect, it } from 'vitest';
import { logFileText, logLevel, matches, type LogLine } from './log-lines.js';

const line = (message: string): LogLine => ({ timestamp: '2026-12-02T07:00:00.000Z', message, level: logLevel(message) });

describe('log lines', () => {
  it('reads the level from the text', () => {
    expect(logLevel('[1202/070000.1:ERROR:gpu_init.cc(1)] Passthrough is not supported')).toBe('error');
    expect(logLevel('browser exited: crashed (signal 11)')).toBe('error');
    expect(logLevel('level=warn msg="slow frame"')).toBe('warn');
    expect(logLevel('[1202/070000.1:WARNING:dns.cc(2)] retry')).toBe('warn');
    expect(logLevel('session started')).toBe('info');
    expect(logLevel('terrorist-free prefix words stay info')).toBe('info');
  });

  it('filters by level and by a case-insensitive search', () => {
    const lines = [line('session started'), line('warning: slow'), line('fatal: gone')];
    expect(lines.filter((l) => matches(l, 'all', '')).length).toBe(3);
    expect(lines.filter((l) => matches(l, 'warn', '')).map((l) => l.message)).toEqual(['warning: slow', 'fatal: gone']);
    expect(lines.filter((l) => matches(l, 'error', '')).map((l) => l.message)).toEqual(['fatal: gone']);
    expect(lines.filter((l) => matches(l, 'all', 'SLOW')).map((l) => l.message)).toEqual(['warning: slow']);
    expect(lines.filter((l) => matches(l, 'error', 'slow'))).toEqual([]);
  });

  it('writes one timestamped line per entry', () => {
    expect(logFileText([line('a'), line('b')])).toBe('2026-12-02T07:00:00.000Z a\n2026-12-02T07:00:00.000Z b\n');
    expect(logFileText([])).toBe('');
  });
});
