/**
 * The event track under a replay (or the live view): one mark per telemetry event on a time
 * axis from `originMs` over `spanMs`, coloured by category, with category filters. Clicking a
 * mark (or its row in the list) calls `onSeek` with its offset; the marks at or just before the
 * playhead (`currentMs`, an offset) are highlighted while the video plays, and the list keeps
 * the latest of them in view.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { TIMELINE_CATEGORIES, offsetLabel, type TimelineCategory, type TimelineMark } from './timeline-events';
import '../../styles/inspect.css';

/** A mark counts as "now" while the playhead is within this long after it… */
const ACTIVE_WINDOW_MS = 1500;
/** …or up to a frame before it: a video shows whole frames, so a seek lands on the frame at or before the time asked. */
const FRAME_SLACK_MS = 100;

export interface EventTimelineProps {
  marks: TimelineMark[];
  /** Time 0 of the axis, ms since the epoch (the replay's start; for a live session, the window's start). */
  originMs: number;
  spanMs: number;
  /** The playhead as an offset from `originMs`. */
  currentMs?: number;
  onSeek?: (offsetMs: number) => void;
  label: string;
}

export function EventTimeline({ marks, originMs, spanMs, currentMs, onSeek, label }: EventTimelineProps): React.JSX.Element {
  const [hidden, setHidden] = useState<Set<TimelineCategory>>(new Set(['control', 'connection']));
  const listRef = useRef<HTMLOListElement>(null);
  const present = useMemo(() => new Set(marks.map((m) => m.category)), [marks]);
  const inRange = useMemo(
    () => marks.filter((m) => !hidden.has(m.category) && m.atMs >= originMs && m.atMs <= originMs + spanMs),
    [marks, hidden, originMs, spanMs],
  );
  const active = (m: TimelineMark) => {
    if (currentMs === undefined) return false;
    const since = currentMs - (m.atMs - originMs);
    return since >= -FRAME_SLACK_MS && since <= ACTIVE_WINDOW_MS;
  };
  const lastActive = [...inRange].reverse().find(active)?.seq;

  useEffect(() => {
    if (lastActive === undefined) return;
    listRef.current?.querySelector(`[data-seq="${lastActive}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [lastActive]);

  const toggle = (c: TimelineCategory) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(c)) next.delete(c);
      else next.add(c);
      return next;
    });
  const pct = (atMs: number) => `${Math.min(100, Math.max(0, ((atMs - originMs) / Math.max(1, spanMs)) * 100))}%`;

  return (
    <section className="timeline" aria-label={label}>
      <div className="timeline-filters" role="group" aria-label="Event categories">
        {TIMELINE_CATEGORIES.filter((c) => present.has(c)).map((c) => (
          <label key={c} className={`timeline-filter tl-${c}`}>
            <input type="checkbox" checked={!hidden.has(c)} onChange={() => toggle(c)} /> {c}
          </label>
        ))}
        <span className="spacer" />
        <span className="muted small">{inRange.length} events</span>
      </div>
      <div className="timeline-track">
        {currentMs !== undefined ? <div className="timeline-playhead" style={{ left: pct(originMs + currentMs) }} /> : null}
        {inRange.map((m) => (
          <button
            key={m.seq}
            type="button"
            className={`timeline-mark tl-${m.category}${m.bad ? ' tl-bad' : ''}${active(m) ? ' tl-active' : ''}`}
            style={{ left: pct(m.atMs) }}
            data-offset-ms={Math.round(m.atMs - originMs)}
            title={`${offsetLabel(m.atMs - originMs)} ${m.label}`}
            aria-label={`${m.category} at ${offsetLabel(m.atMs - originMs)}: ${m.label}`}
            onClick={() => onSeek?.(m.atMs - originMs)}
          />
        ))}
      </div>
      <ol className="timeline-list" ref={listRef}>
        {inRange.map((m) => (
          <li
            key={m.seq}
            data-seq={m.seq}
            data-offset-ms={Math.round(m.atMs - originMs)}
            className={`${active(m) ? 'tl-active' : ''}${m.bad ? ' tl-bad' : ''}`}
          >
            <button type="button" className="timeline-row" onClick={() => onSeek?.(m.atMs - originMs)} disabled={!onSeek}>
              <span className="mono small">{offsetLabel(m.atMs - originMs)}</span>
              <span className={`timeline-cat tl-${m.category}`}>{m.category}</span>
              <span className="timeline-label">{m.label}</span>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
