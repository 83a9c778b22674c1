import { describe, expect, it } from 'vitest';
import { boundedLines, clientPathBelow, parseReport } from './fs-watcher-report.js';

const id = '0b6c3f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('parseReport (a watcher line, untrusted)', () => {
  it('accepts the known reports', () => {
    expect(parseReport(JSON.stringify({ t: 'added', id, dirs: 3 }))).toEqual({ t: 'added', id, dirs: 3 });
    expect(parseReport(JSON.stringify({ t: 'event', id, type: 'CREATE', path: 'a/b.txt', dir: false }))).toEqual({
      t: 'event',
      id,
      type: 'CREATE',
      path: 'a/b.txt',
      dir: false,
    });
    expect(parseReport(JSON.stringify({ t: 'refused', id, code: 'watch_limit', dirs: 50, budget: 50 }))).toMatchObject({ code: 'watch_limit', budget: 50 });
    expect(parseReport(JSON.stringify({ t: 'limit', id, dirs: 50, budget: 50 }))).toEqual({ t: 'limit', id, dirs: 50, budget: 50 });
  });

  it('drops anything else: bad JSON, unknown kinds, wrong types, climbing or absolute paths', () => {
    const bad = [
      'not json',
      'null',
      '[]',
      JSON.stringify({ t: 'added', id: 'x y', dirs: 1 }),
      JSON.stringify({ t: 'added', id, dirs: -1 }),
      JSON.stringify({ t: 'added', id, dirs: 1.5 }),
      JSON.stringify({ t: 'shell', id }),
      JSON.stringify({ t: 'refused', id, code: 'anything' }),
      JSON.stringify({ t: 'event', id, type: 'CHMOD', path: 'a', dir: false }),
      JSON.stringify({ t: 'event', id, type: 'CREATE', path: 'a', dir: 'no' }),
      ...['', '/etc/shadow', '../x', 'a/../../x', 'a//b', './a', 'a/.', 'a\0b', 'x'.repeat(5000)].map((p) =>
        JSON.stringify({ t: 'event', id, type: 'CREATE', path: p, dir: false }),
      ),
    ];
    for (const line of bad) expect(parseReport(line), line.slice(0, 80)).toBeUndefined();
  });
});

describe('clientPathBelow', () => {
  it('joins inside the watched dir only', () => {
    expect(clientPathBelow('/tmp/w', 'a/b')).toBe('/tmp/w/a/b');
    expect(clientPathBelow('/', 'a')).toBe('/a');
    expect(clientPathBelow('/tmp/w', '../x')).toBeUndefined();
    expect(clientPathBelow('/tmp/w', '/etc')).toBeUndefined();
  });
});

describe('boundedLines', () => {
  it('splits lines across chunks and stops at the first line over the bound', () => {
    const lines: string[] = [];
    let overflows = 0;
    const feed = boundedLines(
      8,
      (l) => lines.push(l),
      () => overflows++,
    );
    feed(Buffer.from('ab\ncd'));
    feed(Buffer.from('ef\n12345678\n'));
    expect(lines).toEqual(['ab', 'cdef', '12345678']);
    feed(Buffer.from('1234'));
    feed(Buffer.from('56789'));
    feed(Buffer.from('\nlater\n'));
    expect(overflows).toBe(1);
    expect(lines).toEqual(['ab', 'cdef', '12345678']);
  });
});
