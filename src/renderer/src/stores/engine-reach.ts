/**
 * Whether the engine answers. The change feed (`live-feed.ts`) going offline is the first sign;
 * one request (`GET /healthz`) that cannot reach the engine confirms it — a feed that dropped
 * while the engine still answers (a proxy cut the stream) is not "down". Down, the console shows
 * a banner, disables actions and marks its data stale as of `lastLiveAt` (the last moment the
 * feed was live); the feed keeps reconnecting by itself, and its next `hello` (which refetches
 * every screen) ends it.
 */
import { create } from 'zustand';
import { api } from '../transport/api-client';
import { ApiError } from '../transport/transport';
import { useLiveFeed } from './live-feed';

interface EngineReach {
  down: boolean;
  /** Epoch ms when the change feed was last live: what the screens' data is as of. */
  lastLiveAt: number;
}

export const useEngineReach = create<EngineReach>(() => ({ down: false, lastLiveAt: Date.now() }));

/** Only a request that never got an answer counts: an HTTP error means the engine is there. */
function unreachable(err: unknown): boolean {
  return !(err instanceof ApiError && err.status !== undefined);
}

const PROBE_MS = 2000;
let probing: ReturnType<typeof setInterval> | undefined;

async function probe(): Promise<void> {
  try {
    await api.call('GET /healthz');
    useEngineReach.setState({ down: false });
  } catch (err) {
    if (useLiveFeed.getState().status !== 'live' && unreachable(err)) useEngineReach.setState({ down: true });
  }
}

useLiveFeed.subscribe((feed, prev) => {
  if (feed.status === 'live') {
    clearInterval(probing);
    probing = undefined;
    useEngineReach.setState({ down: false, lastLiveAt: Date.now() });
    return;
  }
  if (prev.status === 'live') useEngineReach.setState({ lastLiveAt: Date.now() });
  if (feed.status === 'offline' && !probing) {
    void probe();
    probing = setInterval(() => void probe(), PROBE_MS);
  }
});

/** `07:31:05`: when the data on screen was last known current. */
export function staleTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour12: false });
}
