/**
 * Invocations of deployed apps: list (status filter, search), and one invocation's details at
 * `#/invocations/<id>` —
 * payload, output, status reason, every browser it used — running or ended — with links to its
 * session view, replay, telemetry and HAR (so "checkout-bot failed" leads to what its browser
 * saw), and its event
 * stream (`/invocations/{id}/events`: logs and state changes, ends at a terminal state).
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../shared/wire/sessions';
import { api, type QueryOf } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { createListStore } from '../stores/list-store';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, Spinner, formatTime } from '../components/ui';
import { notify, reportError } from '../stores/toasts';
import { href, navigate } from '../router';
import { DeploymentsCard } from './deployments-card';
import { InvokeDialog } from './invoke-dialog';
import type { Invocation } from '../../../shared/wire/apps';

export type { Invocation };

type InvocationStatus = NonNullable<QueryOf<'GET /invocations'>['status']>;
const STATUSES: InvocationStatus[] = ['queued', 'running', 'succeeded', 'failed'];

export const useInvocations = createListStore<Invocation, { status: InvocationStatus | ''; query: string }>({
  topic: 'invocations',
  filters: { status: '', query: '' },
  fetch: (f) =>
    api.call('GET /invocations', {
      query: { limit: 100, ...(f.status ? { status: f.status } : {}), ...(f.query.trim() ? { query: f.query.trim() } : {}) },
    }),
});

const TONE = { queued: 'neutral', running: 'info', succeeded: 'ok', failed: 'bad' } as const;

function pretty(text: string | undefined): string {
  if (!text) return '—';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * The browsers an invocation used (`browser_session_ids`, ended ones too) and, for those still
 * running, their names. An ended browser's replay, telemetry and HAR come from its post-mortem.
 */
function InvocationBrowsers({ used, running }: { used: string[]; running: Session[] | null }): React.JSX.Element {
  if (!running) return <Spinner label="Loading browsers" />;
  const ids = [...new Set([...used, ...running.map((b) => b.session_id)])];
  if (!ids.length) return <p className="muted small">This invocation used no browser.</p>;
  const names = new Map(running.map((b) => [b.session_id, b.name]));
  const downloadHar = (id: string): void => {
    api
      .download('GET /browsers/:id/har', { opts: { params: { id } }, filename: `${id}.har` })
      .then((res) => res.saved && notify(`Downloaded HAR of ${id}`), reportError);
  };
  return (
    <ul className="invocation-browsers">
      {ids.map((id) => {
        const base = `/sessions/${encodeURIComponent(id)}`;
        return (
          <li key={id}>
            <a className="mono" href={href(base)}>
              {names.get(id) ?? id}
            </a>{' '}
            {names.has(id) ? <Badge tone="ok">running</Badge> : <Badge>ended</Badge>} <a href={href(`${base}/replays`)}>Replay</a> ·{' '}
            <a href={href(`${base}/telemetry`)}>Telemetry</a> ·{' '}
            <Button variant="ghost" onClick={() => downloadHar(id)}>
              HAR
            </Button>
          </li>
        );
      })}
    </ul>
  );
}

function InvocationDetails({ inv }: { inv: Invocation }): React.JSX.Element {
  const [lines, setLines] = useState<string[]>([]);
  const [browsers, setBrowsers] = useState<Session[] | null>(null);
  const [used, setUsed] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState(true);
  useEffect(() => {
    setLines([]);
    setError(null);
    setStreaming(true);
    setUsed([]);
    api.call('GET /invocations/:id/browsers', { params: { id: inv.id } }).then(
      (r) => setBrowsers(r.browsers),
      (err) => setError(errorMessage(err)),
    );
    // The list's rows leave out the browsers an invocation used; its detail has them.
    api.call('GET /invocations/:id', { params: { id: inv.id } }).then(
      (r) => setUsed(r.browser_session_ids ?? []),
      (err) => setError(errorMessage(err)),
    );
    const frames = api.stream('GET /invocations/:id/events', { params: { id: inv.id }, query: { since: '24h' } });
    const it = frames[Symbol.asyncIterator]();
    let stopped = false;
    void (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done || stopped) break;
          const e = r.value as { event?: string; timestamp?: string; message?: string; invocation?: Invocation; error?: { message?: string } };
          if (e.event === 'sse_heartbeat') continue;
          const text =
            e.event === 'log'
              ? (e.message ?? '')
              : e.event === 'invocation_state'
                ? `[state] ${e.invocation?.status ?? ''}${e.invocation?.status_reason ? `: ${e.invocation.status_reason}` : ''}`
                : `[${e.event}] ${e.error?.message ?? ''}`;
          setLines((prev) => [...prev.slice(-1999), `${e.timestamp ? new Date(e.timestamp).toLocaleTimeString(undefined, { hour12: false }) : ''} ${text}`]);
        }
      } catch (err) {
        if (!stopped) setError(errorMessage(err));
      } finally {
        if (!stopped) setStreaming(false);
      }
    })();
    return () => {
      stopped = true;
      void it.return?.();
    };
  }, [inv.id]);
  return (
    <aside className="card invocation-details" aria-label={`Invocation ${inv.id}`}>
      <h2>
        {inv.app_name} · {inv.action_name} <Badge tone={TONE[inv.status]}>{inv.status}</Badge>
      </h2>
      <dl className="props">
        <dt>Id</dt>
        <dd className="mono">{inv.id}</dd>
        <dt>Version</dt>
        <dd>{inv.version}</dd>
        <dt>Started</dt>
        <dd>{formatTime(inv.started_at)}</dd>
        <dt>Finished</dt>
        <dd>{formatTime(inv.finished_at)}</dd>
        {inv.status_reason ? (
          <>
            <dt>Reason</dt>
            <dd>{inv.status_reason}</dd>
          </>
        ) : null}
      </dl>
      {error ? <ErrorBanner message={error} /> : null}
      <h4>Payload</h4>
      <pre className="output">{pretty(inv.payload)}</pre>
      <h4>Output</h4>
      <pre className="output">{pretty(inv.output)}</pre>
      <h4>Browsers</h4>
      <InvocationBrowsers used={used} running={browsers} />
      <h4>Events {streaming ? <Badge tone="ok">live</Badge> : <Badge>ended</Badge>}</h4>
      <pre className="output invocation-events" role="log" aria-label="Invocation events">
        {lines.join('\n') || 'Waiting for events…'}
      </pre>
    </aside>
  );
}

/** The invocation a deep link names, from the list or (older than the list's page) fetched. */
function useSelected(id: string | undefined, items: Invocation[]): Invocation | undefined {
  const [fetched, setFetched] = useState<Invocation | undefined>();
  const listed = id ? items.find((i) => i.id === id) : undefined;
  useEffect(() => {
    setFetched(undefined);
    if (!id || listed) return;
    api.call('GET /invocations/:id', { params: { id } }).then(setFetched, () => setFetched(undefined));
  }, [id, listed]);
  return listed ?? fetched;
}

export function InvocationsPage({ id: selected }: { id?: string }): React.JSX.Element {
  const { items, loading, loaded, error, filters, setFilters, refresh } = useInvocations();
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const setSelected = (id: string): void => navigate(`/invocations/${encodeURIComponent(id)}`);
  const [invoking, setInvoking] = useState(false);
  const current = useSelected(selected, items);
  return (
    <section className="page">
      <PageHeader
        title="Invocations"
        subtitle="Runs of deployed app actions."
        actions={
          <Button variant="primary" onClick={() => setInvoking(true)}>
            New invocation
          </Button>
        }
      />
      <div className="toolbar">
        <Field label="Status">
          <select value={filters.status} onChange={(e) => setFilters({ status: STATUSES.find((s) => s === e.target.value) ?? '' })}>
            <option value="">all</option>
            <option>queued</option>
            <option>running</option>
            <option>succeeded</option>
            <option>failed</option>
          </select>
        </Field>
        <input
          type="search"
          data-search
          className="align-end"
          aria-label="Search invocations"
          placeholder="Search app, action or id"
          value={filters.query}
          onChange={(e) => setFilters({ query: e.target.value })}
        />
        {loading ? <Spinner label="Loading invocations" /> : null}
      </div>
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? (
        <EmptyState title="No invocations" action={<Button onClick={() => setInvoking(true)}>New invocation</Button>}>
          Invoke an action of a running deployment (New invocation, or POST /invocations); its runs appear here.
        </EmptyState>
      ) : null}
      <div className={current ? 'files-split' : undefined}>
        {items.length ? (
          <table className="table" aria-label="Invocations">
            <thead>
              <tr>
                <th>App · action</th>
                <th>Status</th>
                <th>Started</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id} className={i.id === selected ? 'row-selected' : undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => setSelected(i.id)}>
                      {i.app_name} · {i.action_name}
                    </button>
                    <div className="mono muted small">{i.id}</div>
                  </td>
                  <td>
                    <Badge tone={TONE[i.status]}>{i.status}</Badge>
                  </td>
                  <td className="small nowrap">{formatTime(i.started_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {current ? <InvocationDetails inv={current} /> : null}
      </div>
      <DeploymentsCard />
      <InvokeDialog open={invoking} onClose={() => setInvoking(false)} onInvoked={setSelected} />
    </section>
  );
}
