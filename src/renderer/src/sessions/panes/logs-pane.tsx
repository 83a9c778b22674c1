/**
 * Logs tab: a read-only xterm console streaming `logs/stream` (SSE of `{event:"log"}` frames)
 * from a supervisor service of the session (browser, display, recorder, session) or a file of
 * its filesystem, with follow on or off (off = the current content, then the stream ends).
 * Changing the source restarts the stream; leaving the tab disposes it. The lines received are
 * kept (the newest MAX_LINES) so a search or level filter redraws the console from them, and
 * "Download" saves the lines shown as a `.log` file. An ended session offers its services'
 * recorded logs (the post-mortem): the stream delivers them, then ends; its files are gone.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import type { PaneProps } from './pane-types';
import { api, type QueryOf } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Badge, Button, Field } from '../../components/ui';
import { XtermView } from './xterm-view';
import type { LogStreamFrame } from '../../../../shared/wire/session-logs';
import { logFileText, logLevel, matches, type LevelFilter, type LogLine } from './log-lines';
import { saveBlob } from './session-api';

const MAX_LINES = 20_000;
const LEVEL_COLOUR = { error: '\x1b[31m', warn: '\x1b[33m', info: '' } as const;

/** One line for xterm: dim time, the message coloured by level, search matches inverted. */
function render(l: LogLine, search: string): string {
  let msg = l.message;
  const q = search.trim();
  if (q) {
    const re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
    msg = msg.replace(re, (m) => `\x1b[7m${m}\x1b[27m`);
  }
  const c = LEVEL_COLOUR[l.level];
  return `\x1b[2m${time(l.timestamp)}\x1b[0m ${c}${msg}${c ? '\x1b[0m' : ''}`;
}

const SERVICES = ['browser', 'display', 'recorder', 'session'];

interface Source {
  kind: 'supervisor' | 'path';
  service: string;
  path: string;
  follow: boolean;
}

function time(ts: string | undefined): string {
  if (!ts) return '';
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleTimeString(undefined, { hour12: false });
}

export function LogsPane({ session }: PaneProps): React.JSX.Element {
  const ended = !!session.deleted_at;
  const [draft, setDraft] = useState<Source>({ kind: 'supervisor', service: 'browser', path: '/downloads/', follow: !ended });
  const [active, setActive] = useState<Source>(draft);
  const [generation, setGeneration] = useState(0);
  const [status, setStatus] = useState<{ state: 'streaming' | 'ended' | 'failed'; message?: string; lines: number }>({ state: 'streaming', lines: 0 });
  const term = useRef<Terminal | null>(null);
  const keptLines = useRef<LogLine[]>([]);
  const [search, setSearch] = useState('');
  const [level, setLevel] = useState<LevelFilter>('all');
  const filter = useRef({ search, level });
  filter.current = { search, level };
  const [shownCount, setShownCount] = useState(0);

  const onReady = useCallback((t: Terminal) => {
    term.current = t;
    return () => {
      term.current = null;
    };
  }, []);

  // A new search or level: redraw the console from the lines kept.
  useEffect(() => {
    const t = term.current;
    if (!t) return;
    t.reset();
    const shown = keptLines.current.filter((l) => matches(l, level, search));
    for (const l of shown) t.writeln(render(l, search));
    setShownCount(shown.length);
  }, [search, level]);

  useEffect(() => {
    const t = term.current;
    t?.reset();
    keptLines.current = [];
    setShownCount(0);
    setStatus({ state: 'streaming', lines: 0 });
    const query: QueryOf<'GET /browsers/:id/logs/stream'> = { source: active.kind, follow: active.follow };
    if (active.kind === 'supervisor') query.supervisor_process = active.service;
    else query.path = active.path;
    const it = api.stream('GET /browsers/:id/logs/stream', { params: { id: session.session_id }, query })[Symbol.asyncIterator]();
    let stopped = false;
    let lines = 0;
    const kept = keptLines.current;
    void (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done || stopped) break;
          const f = r.value as LogStreamFrame;
          if (f.event === 'log') {
            lines++;
            const line: LogLine = { timestamp: f.timestamp, message: f.message ?? '', level: logLevel(f.message ?? '') };
            kept.push(line);
            if (kept.length > MAX_LINES) kept.splice(0, kept.length - MAX_LINES);
            if (matches(line, filter.current.level, filter.current.search)) {
              term.current?.writeln(render(line, filter.current.search));
              setShownCount((n) => n + 1);
            }
            setStatus({ state: 'streaming', lines });
          } else if (f.event === 'error') term.current?.writeln(`\x1b[31m${f.error?.message ?? 'error'}\x1b[0m`);
        }
        if (!stopped) setStatus({ state: 'ended', lines });
      } catch (err) {
        if (!stopped) {
          term.current?.writeln(`\x1b[31m${errorMessage(err)}\x1b[0m`);
          setStatus({ state: 'failed', message: errorMessage(err), lines });
        }
      }
    })();
    return () => {
      stopped = true;
      void it.return?.();
    };
  }, [session.session_id, active, generation]);

  const apply = (): void => {
    setActive({ ...draft });
    setGeneration((g) => g + 1);
  };

  return (
    <div className="logs-pane">
      <form
        className="toolbar log-source"
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
      >
        {ended ? null : (
          <Field label="Source">
            <select value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: e.target.value as Source['kind'] })}>
              <option value="supervisor">Service</option>
              <option value="path">File</option>
            </select>
          </Field>
        )}
        {draft.kind === 'supervisor' ? (
          <Field label="Service">
            <select value={draft.service} onChange={(e) => setDraft({ ...draft, service: e.target.value })}>
              {SERVICES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="File path">
            <input className="mono" value={draft.path} onChange={(e) => setDraft({ ...draft, path: e.target.value })} />
          </Field>
        )}
        {ended ? null : (
          <label className="check-field align-end">
            <input type="checkbox" checked={draft.follow} onChange={(e) => setDraft({ ...draft, follow: e.target.checked })} /> Follow
          </label>
        )}
        <Button type="submit" variant="primary" className="align-end">
          Show
        </Button>
        <Button
          className="align-end"
          onClick={() => {
            keptLines.current = [];
            setShownCount(0);
            term.current?.clear();
          }}
        >
          Clear
        </Button>
        <span className="spacer" />
        <span className="align-end">
          {status.state === 'streaming' ? <Badge tone="ok">{active.follow ? 'following' : 'reading'}</Badge> : null}
          {status.state === 'ended' ? <Badge>{ended ? 'recorded log' : 'end of log'}</Badge> : null}
          {status.state === 'failed' ? <Badge tone="bad">failed</Badge> : null} <span className="muted small">{status.lines} lines</span>
        </span>
      </form>
      <div className="toolbar log-filters">
        <input type="search" aria-label="Search log" placeholder="Search log" value={search} onChange={(e) => setSearch(e.target.value)} />
        <select aria-label="Level" value={level} onChange={(e) => setLevel(e.target.value as LevelFilter)}>
          <option value="all">All levels</option>
          <option value="warn">Warnings and errors</option>
          <option value="error">Errors only</option>
        </select>
        <Button
          disabled={!shownCount}
          title="Saves the lines shown (search and level applied) as a .log file"
          onClick={() => {
            const shown = keptLines.current.filter((l) => matches(l, level, search));
            const name = active.kind === 'supervisor' ? active.service : (active.path.split('/').pop() ?? 'file');
            saveBlob(new Blob([logFileText(shown)], { type: 'text/plain' }), `${session.session_id}-${name}.log`);
          }}
        >
          Download .log
        </Button>
        <span className="muted small" aria-label="Lines shown">
          {shownCount} shown
        </span>
      </div>
      {status.state === 'failed' ? (
        <div className="banner banner-error" role="alert">
          {status.message}
        </div>
      ) : null}
      <XtermView readOnly label="Log console" className="console" onReady={onReady} />
      {status.lines === 0 && status.state !== 'failed' ? (
        <p className="muted small">
          Waiting for lines from {active.kind === 'supervisor' ? `the ${active.service} service` : active.path}… Pick another source above if this one is quiet.
        </p>
      ) : null}
    </div>
  );
}
