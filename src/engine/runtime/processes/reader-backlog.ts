/**
 * A live reader of a process's output (the `stdout/stream` SSE, a terminal attach) that reads
 * slower than the process writes would otherwise make the engine queue everything unread in its
 * memory. While more than `max` bytes already wait for the reader, new output is dropped and
 * counted instead; the next frame that goes out reports how much (`dropped_bytes`). The process
 * itself is never slowed or blocked by a reader.
 */
export class ReaderBacklog {
  private dropped = 0;

  constructor(
    private readonly waiting: () => number,
    readonly max: number,
  ) {}

  /** Whether `bytes` of output go out to the reader now; false: dropped and counted. */
  admit(bytes: number): boolean {
    if (this.waiting() <= this.max) return true;
    this.dropped += bytes;
    return false;
  }

  /** Bytes dropped since the last call, to report with the frame going out now. */
  takeDropped(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }
}
