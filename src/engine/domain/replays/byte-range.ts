/**
 * One HTTP byte range (`Range: bytes=a-b`, `bytes=a-`, `bytes=-n`) resolved against a file
 * size. Several ranges are answered with the whole file (RFC 9110 lets a server ignore Range);
 * a syntactically bad or unsatisfiable range is `unsatisfiable` (416).
 */
export type RangeResult = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

export function resolveRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return { kind: 'full' };
  const m = /^bytes=(.+)$/i.exec(header.trim());
  if (!m) return { kind: 'unsatisfiable' };
  if (m[1].includes(',')) return { kind: 'full' };
  const r = /^\s*(\d*)-(\d*)\s*$/.exec(m[1]);
  if (!r || (r[1] === '' && r[2] === '')) return { kind: 'unsatisfiable' };
  let start: number;
  let end: number;
  if (r[1] === '') {
    const n = Number(r[2]);
    if (n === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(r[1]);
    end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
    if (r[2] !== '' && Number(r[2]) < start) return { kind: 'unsatisfiable' };
  }
  if (!Number.isSafeInteger(start) || start >= size || end < start) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}
