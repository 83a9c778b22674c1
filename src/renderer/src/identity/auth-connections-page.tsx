/**
 * Auth connections (managed logins): list, create (create-connection-dialog.tsx), start a login (POST …/login) and open its hosted page, follow the flow live
 * (…/events SSE) in the details with the timeline, delete.
 */
import { useEffect, useState } from 'react';
import type { ManagedAuthRecord, TimelineEventRecord } from '../../../shared/wire/identity';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { notify, reportError } from '../stores/toasts';
import { Badge, Button, EmptyState, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { openExternal } from './open-external';
import { CreateConnection } from './create-connection-dialog';

export const useAuthConnections = createListStore<ManagedAuthRecord, { query: string }>({
  topic: 'auth-connections',
  filters: { query: '' },
  fetch: (f) => api.call('GET /auth/connections', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

function Details({ conn, onClose }: { conn: ManagedAuthRecord | null; onClose(): void }): React.JSX.Element | null {
  const [events, setEvents] = useState<string[]>([]);
  const [timeline, setTimeline] = useState<TimelineEventRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!conn) return;
    setEvents([]);
    setTimeline(null);
    setError(null);
    api.call('GET /auth/connections/:id/timeline', { params: { id: conn.id }, query: { limit: 20 } }).then(setTimeline, (err) => setError(errorMessage(err)));
    if (conn.flow_status !== 'IN_PROGRESS') return;
    const frames = api.stream('GET /auth/connections/:id/events', { params: { id: conn.id } });
    const it = frames[Symbol.asyncIterator]();
    let stopped = false;
    void (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done || stopped) break;
          const e = r.value as { event?: string; timestamp?: string; flow_status?: string; flow_step?: string; error_message?: string | null };
          if (e.event === 'sse_heartbeat') continue;
          const at = e.timestamp ? new Date(e.timestamp).toLocaleTimeString(undefined, { hour12: false }) : '';
          setEvents((prev) => [...prev, `${at} ${e.event}: ${[e.flow_status, e.flow_step, e.error_message].filter(Boolean).join(' · ')}`]);
          // The list (and so the Flow row above) polls every few seconds; refetch now so it agrees with the stream.
          changed('auth-connections');
        }
        if (!stopped) changed('auth-connections');
      } catch (err) {
        if (!stopped) setError(errorMessage(err));
      }
    })();
    return () => {
      stopped = true;
      void it.return?.();
    };
    // Restart only for another connection or another flow, not on every list poll.
  }, [conn?.id, conn?.flow_status]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!conn) return null;
  return (
    <Dialog open title={`Auth connection: ${conn.domain}`} onClose={onClose} wide>
      <dl className="props">
        <dt>Id</dt>
        <dd className="mono">{conn.id}</dd>
        <dt>Profile</dt>
        <dd>{conn.profile_name}</dd>
        <dt>Status</dt>
        <dd>{conn.status}</dd>
        <dt>Flow</dt>
        <dd>{conn.flow_status ? `${conn.flow_type ?? ''} ${conn.flow_status} · ${conn.flow_step ?? ''}` : '—'}</dd>
        <dt>Login URL</dt>
        <dd className="mono small">{conn.login_url ?? '—'}</dd>
        <dt>Hosted page</dt>
        <dd className="mono small">{conn.hosted_url ?? '—'}</dd>
        {conn.error_message ? (
          <>
            <dt>Error</dt>
            <dd>{conn.error_message}</dd>
          </>
        ) : null}
      </dl>
      {error ? <ErrorBanner message={error} /> : null}
      {events.length ? (
        <>
          <h4>Live flow events</h4>
          <pre className="output">{events.join('\n')}</pre>
        </>
      ) : null}
      <h4>Timeline</h4>
      {!timeline && !error ? <Spinner label="Loading timeline" /> : null}
      {timeline && !timeline.length ? <p className="muted">No logins or health checks yet.</p> : null}
      {timeline?.length ? (
        <table className="table">
          <tbody>
            {timeline.map((t) => (
              <tr key={t.id}>
                <td className="small nowrap">{formatTime(t.timestamp)}</td>
                <td>{t.type}</td>
                <td>
                  <Badge tone={t.status === 'SUCCESS' || t.status === 'AUTHENTICATED' ? 'ok' : t.status === 'IN_PROGRESS' ? 'info' : 'bad'}>{t.status}</Badge>
                </td>
                <td className="small">{t.error_message ?? t.step ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Dialog>
  );
}

export function AuthConnectionsPage(): React.JSX.Element {
  const list = useAuthConnections();
  const { items, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ManagedAuthRecord | null>(null);
  const [details, setDetails] = useState<ManagedAuthRecord | null>(null);
  const [starting, setStarting] = useState<string | null>(null);

  const login = async (c: ManagedAuthRecord): Promise<void> => {
    setStarting(c.id);
    try {
      const r = await api.call('POST /auth/connections/:id/login', { params: { id: c.id }, body: {} });
      notify('Login started: the hosted page opens in a new window');
      changed('auth-connections');
      await openExternal(r.hosted_url);
    } catch (err) {
      reportError(err);
    } finally {
      setStarting(null);
    }
  };

  return (
    <section className="page">
      <PageHeader
        title="Auth connections"
        subtitle="Managed logins kept in browser profiles."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            New connection
          </Button>
        }
      />
      <ListChrome
        noun="connections"
        placeholder="Search domain, profile or id"
        list={list}
        empty={
          <EmptyState title="No auth connections" action={<Button onClick={() => setCreating(true)}>New connection</Button>}>
            Create one for a site, then start a login to sign in through its hosted page.
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Domain</th>
              <th>Profile</th>
              <th>Status</th>
              <th>Flow</th>
              <th>Last check</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id}>
                <td>
                  <button type="button" className="link" onClick={() => setDetails(c)}>
                    {c.domain}
                  </button>
                  <div className="mono muted small">{c.id}</div>
                </td>
                <td>{c.profile_name}</td>
                <td>{c.status === 'AUTHENTICATED' ? <Badge tone="ok">authenticated</Badge> : <Badge tone="warn">needs auth</Badge>}</td>
                <td>
                  {c.flow_status ? (
                    <Badge
                      tone={c.flow_status === 'IN_PROGRESS' ? 'info' : c.flow_status === 'SUCCESS' ? 'ok' : 'bad'}
                    >{`${c.flow_status}${c.flow_step ? ` · ${c.flow_step}` : ''}`}</Badge>
                  ) : (
                    '—'
                  )}
                </td>
                <td className="small nowrap">{formatTime(c.last_auth_check_at)}</td>
                <td className="row-actions">
                  <Button busy={starting === c.id} onClick={() => void login(c)}>
                    Start login
                  </Button>
                  {c.flow_status === 'IN_PROGRESS' && c.hosted_url ? (
                    <Button onClick={() => void openExternal(c.hosted_url!).catch(reportError)}>Open hosted page</Button>
                  ) : null}
                  <Button variant="danger" onClick={() => setDeleting(c)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CreateConnection open={creating} onClose={() => setCreating(false)} />
      <Details conn={details ? (items.find((i) => i.id === details.id) ?? details) : null} onClose={() => setDetails(null)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete the connection for ${deleting?.domain ?? ''}?`}
        message="Its login flows and health checks stop; the browser profile is kept."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /auth/connections/:id', { params: { id: deleting!.id } });
          notify('Connection deleted');
          changed('auth-connections');
        }}
      />
    </section>
  );
}
