/**
 * The bounded output history of a process: late subscribers of `stdout/stream` (and terminal
 * attaches) first receive what the process printed since it started, as far back as the
 * buffer reaches; the oldest chunks are dropped once it holds more than `maxBytes` (0: keeps nothing).
 */
export type StreamName = 'stdout' | 'stderr';

export interface OutputChunk {
  stream: StreamName;
  data: Buffer;
}

export class OutputBuffer {
  private chunks: OutputChunk[] = [];
  private bytes = 0;
  /** Bytes dropped from the front so far. */
  dropped = 0;

  constructor(private maxBytes = 1024 * 1024) {}

  push(chunk: OutputChunk): void {
    if (this.maxBytes <= 0) {
      this.dropped += chunk.data.length;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.data.length;
    this.dropTo(this.maxBytes);
  }

  /**
   * Keeps only the last `maxBytes` from now on (an exited process's history: up to 200 of them
   * stay queryable per session, so each keeps its tail, not the whole buffer).
   */
  shrink(maxBytes: number): void {
    this.maxBytes = Math.min(this.maxBytes, maxBytes);
    this.dropTo(this.maxBytes);
    const last = this.chunks.at(-1);
    if (last && this.bytes > this.maxBytes) {
      // One chunk bigger than the rest of the budget: its tail.
      const cut = this.bytes - this.maxBytes;
      this.chunks[this.chunks.length - 1] = { stream: last.stream, data: Buffer.from(last.data.subarray(cut)) };
      this.bytes -= cut;
      this.dropped += cut;
    }
  }

  private dropTo(maxBytes: number): void {
    while (this.bytes > maxBytes && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.bytes -= old.data.length;
      this.dropped += old.data.length;
    }
  }

  snapshot(): OutputChunk[] {
    return this.chunks.slice();
  }
}
