/**
 * Streams the events of one deployment or invocation over SSE: stored history (from `since`,
 * else all of it), then live events, ending by itself once the owner reached a terminal
 * state. Live events come from the in-process log when the owner runs on this node; an owner
 * running elsewhere (another node) is followed by reading the store once a second.
 * Subscribing happens before the history read, so no event falls between the two.
 */
import type { AppEventLog, SequencedEvent } from './app-event-log.js';

/** The SSE writer the API opened (http/sse.ts `SseStream` fits). */
export interface EventSink {
  send(data: unknown): void;
  close(): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

/** The payload of idle-connection heartbeats on these streams. */
export function heartbeat(): { event: 'sse_heartbeat'; timestamp: string } {
  return { event: 'sse_heartbeat', timestamp: new Date().toISOString() };
}

const POLL_MS = 1000;

export interface StreamTarget {
  ownerId: string;
  since?: Date;
  /** Re-reads whether the owner has reached a terminal state (for owners not live here). */
  isTerminal(): Promise<boolean>;
}

export async function streamAppEvents(sse: EventSink, log: AppEventLog, target: StreamTarget): Promise<void> {
  let lastSeq = 0;
  let buffered: SequencedEvent[] | null = [];
  let ended = false;
  const send = (e: SequencedEvent): void => {
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    sse.send(e.event);
  };
  const unsubscribe = log.subscribe(
    target.ownerId,
    (e) => (buffered ? buffered.push(e) : send(e)),
    () => {
      ended = true;
      if (!buffered) sse.close();
    },
  );
  sse.onClose(() => unsubscribe?.());
  for (const e of await log.history(target.ownerId, { since: target.since })) {
    // With `since`, stored events before it are skipped, but numbering continues from them.
    lastSeq = Math.max(lastSeq, e.seq - 1);
    send(e);
  }
  const pending = buffered ?? [];
  buffered = null;
  for (const e of pending) send(e);
  if (unsubscribe) {
    if (ended) sse.close();
    return;
  }
  // Not live on this node: already finished, or running elsewhere.
  while (!sse.closed) {
    const terminal = await target.isTerminal();
    for (const e of await log.history(target.ownerId, { afterSeq: lastSeq, since: target.since })) send(e);
    if (terminal) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  sse.close();
}
