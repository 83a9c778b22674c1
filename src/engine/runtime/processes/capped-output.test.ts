import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output.js';
import { execAnswerPieces } from './exec-answer.js';

const bytes = (n: number, seed = 0) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + seed) % 256));

describe('CappedOutput', () => {
  it('keeps exactly the first cap bytes and counts the rest', () => {
    const out = new CappedOutput(10);
    out.push(bytes(4, 1));
    out.push(bytes(9, 2));
    out.push(bytes(5, 3));
    expect(out.kept).toBe(10);
    expect(out.seen).toBe(18);
    expect(out.truncated).toBe(true);
    const expected = Buffer.concat([bytes(4, 1), bytes(9, 2)]).subarray(0, 10);
    expect([...out.base64Pieces()].join('')).toBe(expected.toString('base64'));
  });

  it('under the cap keeps everything and is not truncated', () => {
    const out = new CappedOutput(100);
    for (let i = 1; i <= 7; i++) out.push(bytes(i, i));
    expect(out.truncated).toBe(false);
    const all = Buffer.concat(Array.from({ length: 7 }, (_, i) => bytes(i + 1, i + 1)));
    expect(out.kept).toBe(all.length);
    expect([...out.base64Pieces()].join('')).toBe(all.toString('base64'));
  });

  it('exactly at the cap is not truncated', () => {
    const out = new CappedOutput(6);
    out.push(bytes(6));
    out.push(Buffer.alloc(0));
    expect(out.truncated).toBe(false);
  });
});

describe('execAnswerPieces', () => {
  it('is one JSON document with both streams and their truncation', () => {
    const stdout = new CappedOutput(4);
    stdout.push(Buffer.from('hello'));
    const stderr = new CappedOutput(4);
    stderr.push(Buffer.from('e'));
    const body = JSON.parse([...execAnswerPieces({ exit_code: 3, duration_ms: 12 }, stdout, stderr)].join(''));
    expect(body).toEqual({
      exit_code: 3,
      duration_ms: 12,
      output_truncated: true,
      stdout_truncated: true,
      stderr_truncated: false,
      stdout_b64: Buffer.from('hell').toString('base64'),
      stderr_b64: Buffer.from('e').toString('base64'),
    });
  });

  it('says timed_out, and no output_truncated when nothing was cut', () => {
    const none = new CappedOutput(4);
    const body = JSON.parse([...execAnswerPieces({ exit_code: 137, duration_ms: 1, timed_out: true }, none, new CappedOutput(4))].join(''));
    expect(body).toEqual({ exit_code: 137, duration_ms: 1, timed_out: true, stdout_truncated: false, stderr_truncated: false, stdout_b64: '', stderr_b64: '' });
  });
});
