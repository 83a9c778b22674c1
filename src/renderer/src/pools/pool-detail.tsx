/**
 * One pool at `#/pools/<id>`: its counts and configuration, the sessions acquired from it
 * (session rows name their pool), and Edit, Flush (idle browsers end and are launched again at
 * the fill rate) and Delete. Polled while shown: counts change without a change event.
 */
import { useCallback, useEffect, useState } from 'react';
import type { Session } from '../../../shared/wire/sessions';
import type { BrowserPool } from './pool-store';
import { poolLabel, POOL_POLL_MS } from './pool-store';
import { PoolFormDialog } from './pool-form-dialog';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { onChange, changed } from '../stores/changes';
import { usePolling } from '../stores/use-polling';
import { useDeletedGuard } from '../stores/use-deleted-guard';
import { notify, reportError } from '../stores/toasts';
import { href, navigate } from '../router';
import { Button, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';

function ConfigProps({ pool }: { pool: BrowserPool }): React.JSX.Element {
  const c = pool.browser_pool_config;
  const rows: Array<[string, React.ReactNode]> = [
    ['Id', <span className="mono">{pool.id}</span>],
    ['Size', c.size],
    ['Available', <span data-testid="pool-available">{pool.available_count}</span>],
    ['Acquired', <span data-testid="pool-acquired">{pool.acquired_count}</span>],
    ['Fill rate', c.fill_rate_per_minute == null ? '—' : `${c.fill_rate_per_minute} % of size per minute`],
    ['Idle timeout', c.timeout_seconds == null ? '—' : `${c.timeout_seconds} s`],
    ['Profile', c.profile ? <a href={href(`/profiles/${encodeURIComponent(c.profile.id ?? c.profile.name ?? '')}`)}>{c.profile.name ?? c.profile.id}</a> : '—'],
    ['Proxy', c.proxy_id ? <span className="mono">{c.proxy_id}</span> : '—'],
    ['Start URL', c.start_url ? <span className="mono">{c.start_url}</span> : '—'],
    ['Browser', [c.headless ? 'headless' : 'headful', c.stealth ? 'stealth' : null, c.kiosk_mode ? 'kiosk' : null].filter(Boolean).join(', ')],
    ['Extensions', pool.extension_ids.length ? pool.extension_ids.join(', ') : '—'],
    ['Region', pool.region],
    ['Created', formatTime(pool.created_at)],
  ];
  return (
    <dl className="props" aria-label="Pool properties">
      {rows.map(([k, v]) => [<dt key={`${k}-t`}>{k}</dt>, <dd key={`${k}-d`}>{v}</dd>])}
    </dl>
  );
}

export function PoolDetail({ id }: { id: string }): React.JSX.Element {
  const [pool, setPool] = useState<BrowserPool | null>(null);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [flushing, setFlushing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const { deleted, remove } = useDeletedGuard();
  const load = useCallback(async () => {
    if (deleted.current) return;
    try {
      const [p, all] = await Promise.all([
        api.call('GET /browser_pools/:id_or_name', { params: { id_or_name: id } }),
        api.call('GET /browsers', { query: { status: 'active', limit: 100 } }),
      ]);
      setPool(p);
      setSessions(all.filter((s) => s.pool?.id === p.id));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [id, deleted]);
  usePolling(load, POOL_POLL_MS);
  useEffect(() => onChange('pools', () => void load()), [load]);

  const flush = async (): Promise<void> => {
    setFlushing(true);
    try {
      await api.call('POST /browser_pools/:id_or_name/flush', { params: { id_or_name: id } });
      notify('Idle browsers flushed; the pool refills at its fill rate');
      await load();
    } catch (err) {
      reportError(err);
    } finally {
      setFlushing(false);
    }
  };

  return (
    <section className="page">
      <nav className="breadcrumb">
        <a href={href('/pools')}>Pools</a> / <span className="mono">{pool ? poolLabel(pool) : id}</span>
      </nav>
      <PageHeader
        title={pool ? `Pool ${poolLabel(pool)}` : 'Pool'}
        subtitle="Idle browsers wait here until acquired; released ones are reused or replaced."
        actions={
          pool ? (
            <>
              <Button onClick={() => setEditing(true)}>Edit</Button>
              <Button busy={flushing} onClick={() => void flush()}>
                Flush
              </Button>
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          ) : null
        }
      />
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!pool && !error ? <Spinner label="Loading pool" /> : null}
      {pool ? (
        <>
          <ConfigProps pool={pool} />
          <section className="card resource-card" aria-label="Acquired sessions">
            <h3>Acquired sessions</h3>
            {sessions.length ? (
              <ul>
                {sessions.map((s) => (
                  <li key={s.session_id}>
                    <a className="mono" href={href(`/sessions/${encodeURIComponent(s.session_id)}`)}>
                      {s.name ?? s.session_id}
                    </a>{' '}
                    <span className="muted small">since {formatTime(s.created_at)}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small">None: acquire one with browserPools.acquire, then it shows here until released.</p>
            )}
          </section>
        </>
      ) : null}
      <PoolFormDialog open={editing} pool={pool} onClose={() => setEditing(false)} />
      <ConfirmDialog
        open={deleting}
        title={`Delete pool ${pool ? poolLabel(pool) : id}?`}
        message={
          pool?.acquired_count
            ? `Its idle browsers end, and so do the ${pool.acquired_count} session(s) acquired from it.`
            : 'Its idle browsers end; the pool can no longer be acquired from.'
        }
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await remove(() => api.call('DELETE /browser_pools/:id_or_name', { params: { id_or_name: id }, body: { force: !!pool?.acquired_count } }));
          notify('Pool deleted');
          changed('pools');
          navigate('/pools');
        }}
      />
    </section>
  );
}
