/**
 * Follows the engine's change feed (`GET /changes`) through the Transport (web: fetch with
 * the console cookie; desktop: main's SSE reader over IPC) and turns each change into the
 * topic refetch every store already listens to (`changed`), plus per-resource listeners for
 * detail views. When the stream ends or fails (engine restart, network) it reconnects with
 * backoff; on every (re)connect the server's `hello` triggers one refetch of everything,
 * since changes made while disconnected are not replayed.
 */
import { create } from 'zustand';
import type { ChangeEvent, ChangeFrame, ChangeResource } from '../../../shared/wire/changes';
import { api } from '../transport/api-client';
import { changed, type Topic } from './changes';

/** Which screens' data each resource feeds. */
const TOPICS: Record<ChangeResource, Topic[]> = {
  session: ['sessions'],
  pool: ['pools', 'sessions'],
  profile: ['profiles'],
  proxy: ['proxies'],
  extension: ['extensions'],
  invocation: ['invocations', 'sessions'],
  deployment: ['deployments', 'invocations'],
  api_key: ['api-keys'],
  project: ['projects', 'org-limits'],
  org_limits: ['org-limits'],
  credential: ['credentials'],
  credential_provider: ['credential-providers'],
  auth_connection: ['auth-connections'],
  telemetry_destination: ['telemetry-destinations'],
};

export const ALL_TOPICS: Topic[] = [...new Set(Object.values(TOPICS).flat()), 'audit-logs'];

const BACKOFF_MS = [250, 500, 1000, 2000, 5000];

interface FeedState {
  status: 'connecting' | 'live' | 'offline';
}

export const useLiveFeed = create<FeedState>(() => ({ status: 'connecting' }));

const resourceListeners = new Set<(e: ChangeEvent) => void>();

/** Hears every change event (for detail views that watch one resource). */
export function onResourceChange(fn: (e: ChangeEvent) => void): () => void {
  resourceListeners.add(fn);
  return () => void resourceListeners.delete(fn);
}

function apply(frame: ChangeFrame, first: boolean): void {
  if (frame.type === 'heartbeat') return;
  if (frame.type === 'hello') {
    useLiveFeed.setState({ status: 'live' });
    // The first connection comes with screens that fetched on mount; later ones missed changes.
    if (!first) changed(...ALL_TOPICS);
    return;
  }
  changed(...(TOPICS[frame.resource] ?? []));
  for (const fn of resourceListeners) fn(frame);
}

/** Starts following the feed until the returned stop function is called. */
export function startLiveFeed(): () => void {
  let stopped = false;
  let iterator: AsyncIterator<unknown> | undefined;
  let wakeUp: (() => void) | undefined;
  void (async () => {
    let attempt = 0;
    let first = true;
    while (!stopped) {
      useLiveFeed.setState({ status: attempt ? 'offline' : 'connecting' });
      try {
        iterator = api.stream('GET /changes')[Symbol.asyncIterator]();
        for (;;) {
          const r = await iterator.next();
          if (r.done || stopped) break;
          apply(r.value as ChangeFrame, first);
          if ((r.value as ChangeFrame).type === 'hello') {
            first = false;
            attempt = 0;
          }
        }
      } catch {
        /* the engine went away or refused: retry below */
      }
      if (stopped) break;
      useLiveFeed.setState({ status: 'offline' });
      const wait = BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)];
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        setTimeout(resolve, wait);
      });
    }
  })();
  return () => {
    stopped = true;
    void iterator?.return?.();
    wakeUp?.();
  };
}
