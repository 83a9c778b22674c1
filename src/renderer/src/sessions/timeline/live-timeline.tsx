/**
 * The event timeline of a live session, under its live view: its telemetry of the last five
 * minutes (or since its first event), the playhead at "now" on the right edge, read again every
 * two seconds.
 */
import { useEffect, useMemo, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { EventTimeline } from './event-timeline';
import { timelineMarks } from './timeline-events';
import { useSessionEvents } from './use-session-events';

const WINDOW_MS = 5 * 60_000;

export function LiveTimeline({ session }: { session: Session }): React.JSX.Element {
  const { events } = useSessionEvents(session, true);
  const marks = useMemo(() => timelineMarks(events), [events]);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  // The axis starts at the first event when that is more recent than the window, so a young session fills the track.
  const origin = Math.max(now - WINDOW_MS, (marks[0]?.atMs ?? now) - 1000);
  return <EventTimeline label="Live timeline" marks={marks} originMs={origin} spanMs={now - origin} currentMs={now - origin} />;
}
