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

  constructor(private readonly maxBytes = 1024 * 1024) {}

  push(chunk: OutputChunk): void {
    if (this.maxBytes <= 0) {
      this.dropped += chunk.data.length;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.data.length;
    while (this.bytes > this.maxBytes && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.bytes -= old.data.length;
      this.dropped += old.data.length;
    }
  }

  snapshot(): OutputChunk[] {
    return this.chunks.slice();
  }
}
