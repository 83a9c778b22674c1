/**
 * A session's error count (console errors, 4xx/5xx answers, failed loads, crashes — see
 * telemetry-errors.ts), derived from what the API already serves: `telemetry/events` filtered to
 * the types an error can have, since the session's creation, paged. Ended sessions answer from
 * their post-mortem, so the count is fetched once; a running session's is refetched at most
 * every REFRESH_MS while something shows it. Shared by the Telemetry tab's badge and the
 * sessions list's Errors column; a failure (older engine, no telemetry) shows no count.
 */
import { useEffect, useState } from 'react';
import { create } from 'zustand';
import type { Session } from '../../../shared/wire/sessions';
import type { TelemetryEnvelope } from '../../../shared/wire/session-telemetry';
import { api } from '../transport/api-client';
import { ERROR_EVENT_TYPES, isErrorEvent } from './telemetry-errors';

const REFRESH_MS = 15_000;
/** Pages read at most per count (1,000 events each): the telemetry buffer holds 4,096. */
const MAX_PAGES = 5;

export interface ErrorCount {
  count: number;
  /** More error-typed events than MAX_PAGES pages: the count is a lower bound. */
  capped: boolean;
}

interface CountsState {
  counts: Record<string, ErrorCount & { at: number }>;
}
const useCounts = create<CountsState>(() => ({ counts: {} }));
const inFlight = new Set<string>();

async function fetchCount(s: Pick<Session, 'session_id' | 'created_at'>): Promise<ErrorCount> {
  let count = 0;
  let offset: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query =
      offset === undefined ? { type: [...ERROR_EVENT_TYPES], since: s.created_at, limit: 1000 } : { type: [...ERROR_EVENT_TYPES], offset, limit: 1000 };
    const r = await api.send('GET /browsers/:id/telemetry/events', { params: { id: s.session_id }, query });
    const items = (Array.isArray(r.body) ? r.body : []) as TelemetryEnvelope[];
    count += items.filter((env) => isErrorEvent(env.event)).length;
    const next = Number(r.headers['x-next-offset']);
    if (r.headers['x-has-more'] !== 'true' || !next) return { count, capped: false };
    offset = next;
  }
  return { count, capped: true };
}

/** Counted again once the session ended: its last moments may hold the errors. */
const keyOf = (s: Session): string => `${s.session_id}${s.deleted_at ? ':ended' : ''}`;

function refresh(s: Session): void {
  const id = keyOf(s);
  const known = useCounts.getState().counts[id];
  if (inFlight.has(id) || (known && (s.deleted_at || Date.now() - known.at < REFRESH_MS))) return;
  inFlight.add(id);
  fetchCount(s)
    .then(
      (c) => useCounts.setState((st) => ({ counts: { ...st.counts, [id]: { ...c, at: Date.now() } } })),
      () => {}, // no count shown: an engine without the route, or the session out of reach
    )
    .finally(() => inFlight.delete(id));
}

/** The session's error count, fetched (and kept current while running) while the caller is mounted. */
export function useErrorCount(s: Session | null | undefined): ErrorCount | undefined {
  const count = useCounts((st) => (s ? st.counts[keyOf(s)] : undefined));
  const [tick, setTick] = useState(0);
  const id = s?.session_id;
  const ended = !!s?.deleted_at;
  useEffect(() => {
    if (!s) return;
    refresh(s);
    if (ended) return;
    const t = setInterval(() => setTick((n) => n + 1), REFRESH_MS);
    return () => clearInterval(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refetch per session and per tick, not per object identity
  }, [id, ended, tick]);
  return count ? { count: count.count, capped: count.capped } : undefined;
}

/** `3`, `5000+` (a lower bound). */
export function errorCountText(c: ErrorCount): string {
  return `${c.count}${c.capped ? '+' : ''}`;
}
