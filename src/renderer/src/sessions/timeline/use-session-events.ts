/**
 * Loads a session's retained telemetry for the timeline (paged reads of `telemetry/events`,
 * screenshots left out), and keeps reading newer events while `follow` is on (a live session:
 * the telemetry history is not on the change feed, so it is polled).
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { api } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import type { Envelope } from '../panes/telemetry-format';
import { TIMELINE_CATEGORIES } from './timeline-events';

const PAGE = 1000;
const MAX_EVENTS = 20_000;

export function useSessionEvents(session: Session, follow: boolean): { events: Envelope[]; error: string | null } {
  const [events, setEvents] = useState<Envelope[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const all: Envelope[] = [];
    let offset = 0;
    let shown = -1;
    const read = async (): Promise<void> => {
      try {
        for (let got = 0; ;) {
          const page = await api.call('GET /browsers/:id/telemetry/events', {
            params: { id: session.session_id },
            query: { category: [...TIMELINE_CATEGORIES], limit: PAGE, offset, order: 'asc' },
          });
          if (cancelled) return;
          all.push(...page);
          got += page.length;
          // The offset is a cursor in sequence space: the next read starts after the last event.
          if (page.length) offset = page[page.length - 1].seq + 1;
          if (page.length < PAGE || got >= MAX_EVENTS) break;
        }
        // Following keeps the newest MAX_EVENTS: a live view left open on a busy session must not grow (and copy) its list without end.
        if (all.length > MAX_EVENTS) all.splice(0, all.length - MAX_EVENTS);
        if (offset !== shown) {
          shown = offset;
          setEvents([...all]);
        }
        setError(null);
      } catch (err) {
        if (!cancelled) setError(errorMessage(err));
      }
      if (follow && !cancelled) timer = setTimeout(() => void read(), 2000);
    };
    void read();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [session, follow]);
  return { events, error };
}
