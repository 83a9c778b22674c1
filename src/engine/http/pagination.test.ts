import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { pageOf, sendPage, sendSlice } from './pagination.js';

/** Just enough of a reply to record the headers a page sets. */
function headersOf(fn: (reply: FastifyReply) => unknown): { result: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const reply = { header: (k: string, v: string) => ((headers[k] = v), reply) } as unknown as FastifyReply;
  return { result: fn(reply), headers };
}

describe('pagination', () => {
  it('defaults offset to 0 and limit to the route default', () => {
    expect(pageOf({})).toEqual({ offset: 0, limit: 20 });
    expect(pageOf({}, 50)).toEqual({ offset: 0, limit: 50 });
    expect(pageOf({ offset: 40, limit: 10 })).toEqual({ offset: 40, limit: 10 });
  });

  it('reads the extra row as "more", trims it, and points at the next page', () => {
    const { result, headers } = headersOf((r) => sendPage(r, [1, 2, 3, 4], { offset: 30, limit: 3 }));
    expect(result).toEqual([1, 2, 3]);
    expect(headers).toEqual({ 'X-Has-More': 'true', 'X-Next-Offset': '33' });
  });

  it('ends with X-Has-More false and X-Next-Offset 0 on the last (or an exactly full) page', () => {
    expect(headersOf((r) => sendPage(r, [1, 2, 3], { offset: 30, limit: 3 }))).toEqual({
      result: [1, 2, 3],
      headers: { 'X-Has-More': 'false', 'X-Next-Offset': '0' },
    });
    expect(headersOf((r) => sendPage(r, [], { offset: 99, limit: 3 }))).toEqual({ result: [], headers: { 'X-Has-More': 'false', 'X-Next-Offset': '0' } });
  });

  it('slices in-memory lists the same way', () => {
    const all = Array.from({ length: 7 }, (_, i) => i);
    expect(headersOf((r) => sendSlice(r, all, { offset: 0, limit: 3 }))).toEqual({
      result: [0, 1, 2],
      headers: { 'X-Has-More': 'true', 'X-Next-Offset': '3' },
    });
    expect(headersOf((r) => sendSlice(r, all, { offset: 3, limit: 3 }))).toEqual({
      result: [3, 4, 5],
      headers: { 'X-Has-More': 'true', 'X-Next-Offset': '6' },
    });
    expect(headersOf((r) => sendSlice(r, all, { offset: 6, limit: 3 }))).toEqual({ result: [6], headers: { 'X-Has-More': 'false', 'X-Next-Offset': '0' } });
    expect(headersOf((r) => sendSlice(r, all, { offset: 100, limit: 3 }))).toEqual({ result: [], headers: { 'X-Has-More': 'false', 'X-Next-Offset': '0' } });
  });
});
