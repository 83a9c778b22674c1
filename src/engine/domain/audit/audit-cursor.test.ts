import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './audit-cursor.js';

const raw = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('audit cursors', () => {
  const position = { timestamp: '2026-01-02T03:04:05.678Z', id: 42 };

  it('round-trips a position through an opaque base64url token', () => {
    const token = encodeCursor(position);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, 'page_token')).toEqual(position);
  });

  it('refuses tokens it did not issue, as a 400 naming the field', () => {
    const bad = [
      '',
      'not base64!',
      'x'.repeat(201),
      raw({ timestamp: position.timestamp, id: 42 }),
      raw([position.timestamp]),
      raw([position.timestamp, 0]),
      raw([position.timestamp, 1.5]),
      raw([position.timestamp, '42']),
      raw(['2026-01-02T03:04:05Z', 42]),
      raw(['2026-13-02T03:04:05.678Z', 42]),
      raw([position.timestamp, 42, 'x']),
      encodeCursor(position) + 'A',
      encodeCursor(position).slice(0, -2),
    ];
    for (const token of bad) {
      expect(() => decodeCursor(token, 'cursor'), token).toThrow('cursor: is not a token this server issued');
    }
  });

  it('refuses an equivalent token spelled differently (strict re-encoding)', () => {
    const spaced = Buffer.from(`[ "${position.timestamp}", 42 ]`, 'utf8').toString('base64url');
    expect(JSON.parse(Buffer.from(spaced, 'base64url').toString())).toEqual([position.timestamp, 42]);
    expect(() => decodeCursor(spaced, 'cursor')).toThrow(/not a token this server issued/);
  });
});
