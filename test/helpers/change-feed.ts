/**
 * Follows the engine's change feed (`GET /changes`) over plain fetch: `next(match)` resolves
 * with the first frame (after those already consumed) that matches, and `seen` keeps every
 * frame for assertions on what a caller was (not) shown. `end` resolves when the stream ends.
 */
import { createParser } from 'eventsource-parser';

export interface ChangeFrame {
  type: string;
  resource?: string;
  id?: string;
  project_id?: string;
}

export interface FeedReader {
  seen: ChangeFrame[];
  next(match: (f: ChangeFrame) => boolean): Promise<ChangeFrame>;
  /** Resolves with the read error, or undefined when the stream ended cleanly. */
  end: Promise<unknown>;
  close(): void;
}

export async function followChanges(url: string, apiKey: string): Promise<FeedReader> {
  const abort = new AbortController();
  const res = await fetch(`${url}/changes`, { headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`GET /changes answered ${res.status}: ${await res.text()}`);
  const seen: ChangeFrame[] = [];
  let cursor = 0;
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const parser = createParser({
    onEvent: (ev) => {
      seen.push(JSON.parse(ev.data) as ChangeFrame);
      wake();
    },
  });
  let ended = false;
  const end = (async () => {
    try {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        parser.feed(value);
      }
    } catch (err) {
      return abort.signal.aborted ? undefined : err;
    } finally {
      ended = true;
      wake();
    }
  })();
  return {
    seen,
    end,
    async next(match) {
      for (;;) {
        while (cursor < seen.length) {
          const f = seen[cursor++];
          if (match(f)) return f;
        }
        if (ended) throw new Error(`the feed ended before a matching frame; seen: ${JSON.stringify(seen)}`);
        await new Promise<void>((r) => waiters.push(r));
      }
    },
    close: () => abort.abort(),
  };
}
