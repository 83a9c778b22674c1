import { describe, expect, it } from 'vitest';
import { SequencedBuffer, type Sequenced } from './sequenced-buffer.js';

const seqs = (es: Sequenced<unknown>[]) => es.map((e) => e.seq);

describe('SequencedBuffer', () => {
  it('numbers items from 1 and keeps the newest `capacity`', () => {
    const b = new SequencedBuffer<string>({ capacity: 3 });
    expect([b.lastSeq, b.firstSeq, b.size]).toEqual([0, 1, 0]);
    for (const s of ['a', 'b', 'c', 'd', 'e']) b.push(s);
    expect(b.retained().map((e) => e.item)).toEqual(['c', 'd', 'e']);
    expect([b.lastSeq, b.firstSeq, b.size]).toEqual([5, 3, 3]);
  });

  it('evicts beyond the byte budget but always keeps the newest item', () => {
    const b = new SequencedBuffer<string>({ capacity: 100, maxBytes: 10, sizeOf: (s) => (s as string).length });
    b.push('aaaa');
    b.push('bbbb');
    b.push('cc');
    expect(b.retained().map((e) => e.item)).toEqual(['aaaa', 'bbbb', 'cc']);
    b.push('d');
    expect(b.retained().map((e) => e.item)).toEqual(['bbbb', 'cc', 'd']);
    b.push('x'.repeat(50));
    expect(b.retained().map((e) => e.item)).toEqual(['x'.repeat(50)]);
  });

  it('replays what is retained after a seq, then follows live without a gap', () => {
    const b = new SequencedBuffer<number>({ capacity: 3 });
    for (let i = 1; i <= 5; i++) b.push(i);
    expect(seqs(b.after(0))).toEqual([3, 4, 5]);
    expect(seqs(b.after(3))).toEqual([4, 5]);
    expect(seqs(b.after(5))).toEqual([]);
    const seen: number[] = [];
    const sub = b.subscribe((e) => seen.push(e.seq), { after: 3 });
    b.push(6);
    sub.unsubscribe();
    b.push(7);
    expect(seen).toEqual([4, 5, 6]);
  });

  it('subscribes live-only without `after`', () => {
    const b = new SequencedBuffer<number>({ capacity: 3 });
    b.push(1);
    const seen: number[] = [];
    b.subscribe((e) => seen.push(e.item));
    b.push(2);
    expect(seen).toEqual([2]);
  });

  it('ends subscribers once on close, refuses pushes, keeps items readable', () => {
    const b = new SequencedBuffer<number>({ capacity: 3 });
    b.push(1);
    let ends = 0;
    b.subscribe(() => {}, { end: () => ends++ });
    b.close();
    b.close();
    expect(ends).toBe(1);
    expect(b.push(2)).toBe(0);
    expect(b.retained().map((e) => e.item)).toEqual([1]);
    const late: number[] = [];
    b.subscribe((e) => late.push(e.item), { after: 0, end: () => ends++ });
    expect([late, ends]).toEqual([[1], 2]);
  });

  it('stays correct across internal compaction', () => {
    const b = new SequencedBuffer<number>({ capacity: 10 });
    for (let i = 1; i <= 5000; i++) b.push(i);
    expect(seqs(b.retained())).toEqual(Array.from({ length: 10 }, (_, i) => 4991 + i));
    expect(seqs(b.after(4995))).toEqual([4996, 4997, 4998, 4999, 5000]);
  });

  it('refuses a capacity below 1', () => {
    expect(() => new SequencedBuffer({ capacity: 0 })).toThrow('capacity must be at least 1');
    expect(() => new SequencedBuffer({ capacity: NaN })).toThrow('capacity must be at least 1');
  });
});
