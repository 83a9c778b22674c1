/**
 * One stream of an `exec`'s output, kept up to `cap` bytes: the first `cap` bytes the process
 * wrote, nothing after them. Bytes past the cap are counted and dropped as they arrive, so the
 * process keeps writing into a drained pipe (it is never blocked, its exit code is its own) while
 * the engine holds at most `cap` bytes per stream. `base64Pieces` encodes the kept bytes once,
 * piece by piece, for an answer written as it is encoded (never the whole output twice).
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  /** Bytes kept (at most `cap`). */
  kept = 0;
  /** Bytes the process wrote, kept or not. */
  seen = 0;

  constructor(readonly cap: number) {}

  push(data: Buffer): void {
    this.seen += data.length;
    const room = this.cap - this.kept;
    if (room <= 0 || data.length === 0) return;
    // A copy of the cut chunk's head: a view would pin the whole chunk.
    const part = data.length <= room ? data : Buffer.from(data.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.seen > this.kept;
  }

  /** The kept bytes as base64, in pieces whose concatenation is the encoding of all of them. */
  *base64Pieces(): Generator<string> {
    let carry = Buffer.alloc(0);
    for (const chunk of this.chunks) {
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - (bytes.length % 3);
      if (whole) yield bytes.subarray(0, whole).toString('base64');
      carry = Buffer.from(bytes.subarray(whole));
    }
    if (carry.length) yield carry.toString('base64');
  }
}
