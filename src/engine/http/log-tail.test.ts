import { describe, expect, it } from 'vitest';
import { LogTail, tailLineOf } from './log-tail.js';

describe('log tail', () => {
  it('keeps time, level and message only (an error adds its message), never other fields', () => {
    const line = tailLineOf(JSON.stringify({ level: 50, time: 0, msg: 'stop hook failed', err: { message: 'boom', stack: 'at x' }, token: 'secret' }));
    expect(line).toEqual({ time: '1970-01-01T00:00:00.000Z', level: 'error', msg: 'stop hook failed: boom' });
    expect(tailLineOf('not json')).toBeNull();
  });

  it('is bounded: the oldest lines go first', () => {
    const tail = new LogTail(3);
    for (let i = 1; i <= 5; i++) tail.push(JSON.stringify({ level: 30, time: i, msg: `line ${i}` }));
    expect(tail.snapshot().map((l) => l.msg)).toEqual(['line 3', 'line 4', 'line 5']);
  });

  it('tees to the destination unchanged', () => {
    const written: string[] = [];
    const tail = new LogTail();
    const out = (c: Buffer | string) => void written.push(String(c));
    const text = `${JSON.stringify({ level: 40, time: 1, msg: 'a' })}\n`;
    tail.tee(out).write(text);
    expect(written).toEqual([text]);
    expect(tail.snapshot()).toEqual([{ time: '1970-01-01T00:00:00.001Z', level: 'warn', msg: 'a' }]);
  });
});
