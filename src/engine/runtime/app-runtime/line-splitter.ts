/**
 * Turns a child's output stream into lines for log events. A line longer than `maxChars`
 * without a newline is emitted in pieces, so a process that never prints a newline cannot
 * grow the engine's memory.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

export function splitLines(stream: Readable | null, onLine: (line: string) => void, maxChars = 16_384): Promise<void> {
  if (!stream) return Promise.resolve();
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const emit = (text: string): void => {
    const parts = (rest + text).split(/\r?\n/);
    rest = parts.pop() ?? '';
    for (const p of parts) onLine(p);
    while (rest.length > maxChars) {
      onLine(rest.slice(0, maxChars));
      rest = rest.slice(maxChars);
    }
  };
  stream.on('data', (chunk: Buffer) => emit(decoder.write(chunk)));
  return new Promise((resolve) => {
    const finish = (): void => {
      emit(decoder.end());
      if (rest) onLine(rest);
      rest = '';
      resolve();
    };
    stream.once('close', finish);
  });
}
