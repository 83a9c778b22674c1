/**
 * Telemetry tab: a live console of `telemetry/stream` (SSE envelopes `{seq, event}`), with
 * history from the oldest retained event (`replay=all`) or from now, category filters, text
 * search, pause/resume (events keep arriving and are held while paused), and the session's
 * recorded categories (PATCH). The list keeps the newest MAX events. Error rows (console errors,
 * 4xx/5xx answers, failed loads, crashes: `telemetry-errors.ts`) are highlighted, counted, and
 * can be shown alone ("Errors only"). An ended session's stream delivers its recorded history.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Badge, Button, EmptyState } from '../../components/ui';
import { VIEW_CATEGORIES, eventTime, searchable, summary, type Envelope } from './telemetry-format';
import { TelemetrySettings } from './telemetry-settings';
import { usePaneKey } from './pane-keys';
import { isErrorEvent } from '../telemetry-errors';
import '../../styles/session-view.css';

const MAX = 2000;
const TONE: Record<string, 'neutral' | 'ok' | 'warn' | 'bad' | 'info'> = {
  console: 'info',
  network: 'neutral',
  page: 'ok',
  system: 'bad',
  monitor: 'warn',
  control: 'neutral',
};

export function TelemetryPane({ session, reload }: PaneProps): React.JSX.Element {
  const [history, setHistory] = useState(true);
  const [events, setEvents] = useState<Envelope[]>([]);
  const [paused, setPaused] = useState(false);
  const held = useRef<Envelope[]>([]);
  const pausedRef = useRef(false);
  const [heldCount, setHeldCount] = useState(0);
  const [shown, setShown] = useState<Set<string>>(() => new Set(VIEW_CATEGORIES));
  const [search, setSearch] = useState('');
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [state, setState] = useState<{ s: 'connecting' | 'live' | 'ended' | 'failed'; message?: string }>({ s: 'connecting' });
  const [open, setOpen] = useState<number | null>(null);
  const [follow, setFollow] = useState(true);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setEvents([]);
    held.current = [];
    setHeldCount(0);
    setState({ s: 'connecting' });
    const frames = api.stream('GET /browsers/:id/telemetry/stream', { params: { id: session.session_id }, query: history ? { replay: 'all' } : {} });
    const it = frames[Symbol.asyncIterator]();
    let stopped = false;
    // Frames are batched per animation frame: a busy page can send hundreds per second.
    let batch: Envelope[] = [];
    let scheduled = false;
    const flush = (): void => {
      scheduled = false;
      const b = batch;
      batch = [];
      if (stopped || !b.length) return;
      if (pausedRef.current) {
        held.current.push(...b);
        setHeldCount(held.current.length);
      } else setEvents((prev) => prev.concat(b).slice(-MAX));
    };
    void (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done || stopped) break;
          const env = r.value as Envelope;
          if (!env?.event) continue;
          setState((s) => (s.s === 'live' ? s : { s: 'live' }));
          batch.push(env);
          if (!scheduled) {
            scheduled = true;
            requestAnimationFrame(flush);
          }
        }
        if (!stopped) setState({ s: 'ended' });
      } catch (err) {
        if (!stopped) setState({ s: 'failed', message: errorMessage(err) });
      }
    })();
    // The stream answers only once an event exists; until then it is connected but quiet.
    const t = setTimeout(() => setState((s) => (s.s === 'connecting' ? { s: 'live' } : s)), 1500);
    return () => {
      stopped = true;
      clearTimeout(t);
      void it.return?.();
    };
  }, [session.session_id, history]);

  const togglePause = (): void => {
    const next = !paused;
    pausedRef.current = next;
    setPaused(next);
    if (!next) {
      const h = held.current;
      held.current = [];
      setHeldCount(0);
      setEvents((prev) => prev.concat(h).slice(-MAX));
    }
  };
  usePaneKey('p', togglePause);

  const q = search.trim().toLowerCase();
  const visible = useMemo(
    () => events.filter((e) => shown.has(e.event.category) && (!errorsOnly || isErrorEvent(e.event)) && (!q || searchable(e.event).includes(q))),
    [events, shown, q, errorsOnly],
  );
  const errorCount = useMemo(() => events.filter((e) => isErrorEvent(e.event)).length, [events]);

  useEffect(() => {
    const el = list.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [visible, follow]);

  return (
    <div className="telemetry-pane">
      {session.deleted_at ? null : <TelemetrySettings session={session} reload={reload} />}
      <div className="toolbar">
        <input type="search" data-search aria-label="Search events" placeholder="Search events" value={search} onChange={(e) => setSearch(e.target.value)} />
        <label className={`check-field errors-only${errorCount ? ' has-errors' : ''}`}>
          <input type="checkbox" checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} /> Errors only
          <span className="error-count" aria-label="Errors">
            {errorCount}
          </span>
        </label>
        {session.deleted_at ? null : (
          <label className="check-field">
            <input type="checkbox" checked={history} onChange={(e) => setHistory(e.target.checked)} /> Include history
          </label>
        )}
        <label className="check-field">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Scroll to newest
        </label>
        <Button onClick={togglePause} aria-pressed={paused}>
          {paused ? `Resume${heldCount ? ` (${heldCount} new)` : ''}` : 'Pause'} <kbd>p</kbd>
        </Button>
        <Button onClick={() => setEvents([])}>Clear</Button>
        <span className="spacer" />
        {state.s === 'connecting' ? <Badge tone="warn">connecting…</Badge> : null}
        {state.s === 'live' ? <Badge tone="ok">{paused ? 'paused' : 'live'}</Badge> : null}
        {state.s === 'ended' ? <Badge>{session.deleted_at ? 'recorded history' : 'stream ended'}</Badge> : null}
        {state.s === 'failed' ? <Badge tone="bad">failed</Badge> : null}
        <span className="muted small">
          {visible.length} / {events.length} events
        </span>
      </div>
      <div className="category-filters" role="group" aria-label="Category filters">
        {VIEW_CATEGORIES.map((c) => (
          <label key={c} className={`chip ${shown.has(c) ? 'chip-on' : ''}`}>
            <input
              type="checkbox"
              aria-label={`Show ${c}`}
              checked={shown.has(c)}
              onChange={(e) => {
                const next = new Set(shown);
                if (e.target.checked) next.add(c);
                else next.delete(c);
                setShown(next);
              }}
            />
            {c}
          </label>
        ))}
      </div>
      {state.s === 'failed' ? (
        <div className="banner banner-error" role="alert">
          {state.message}
        </div>
      ) : null}
      {!events.length && state.s !== 'failed' ? (
        <EmptyState title="No telemetry events yet">
          Use the browser (or the Code tab) to produce some. Console, network, page and interaction events appear only when those categories are recorded —
          enable them above.
        </EmptyState>
      ) : null}
      {events.length ? (
        <div className="event-list" ref={list} role="log" aria-label="Telemetry events">
          {visible.map((env) => (
            <div
              key={env.seq}
              className={isErrorEvent(env.event) ? 'event-row event-row-error' : 'event-row'}
              data-category={env.event.category}
              data-error={isErrorEvent(env.event) || undefined}
            >
              <button type="button" className="event-line" onClick={() => setOpen(open === env.seq ? null : env.seq)} aria-expanded={open === env.seq}>
                <span className="mono muted">{eventTime(env.event.ts)}</span>
                <Badge tone={TONE[env.event.category] ?? 'neutral'}>{env.event.category}</Badge>
                <span className="mono strong">{env.event.type}</span>
                <span className="mono event-summary">{summary(env.event)}</span>
              </button>
              {open === env.seq ? (
                <pre className="event-json">{JSON.stringify(env, (k, v) => (k === 'png' && typeof v === 'string' ? `<${v.length} base64 chars>` : v), 2)}</pre>
              ) : null}
            </div>
          ))}
          {!visible.length ? <p className="muted small">No event matches the filters.</p> : null}
        </div>
      ) : null}
    </div>
  );
}
