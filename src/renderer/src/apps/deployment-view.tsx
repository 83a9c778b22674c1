/**
 * One deployment at `#/deployments/<id>`: status and reason, the app versions it produced, and
 * its event stream (`/deployments/{id}/events`: build logs and state changes; it ends at a
 * terminal state), with Redeploy (the deploy form prefilled: `deploy-dialog.tsx`)
 * and Delete (stops its apps).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { AppVersion, Deployment } from './app-stores';
import { DeployDialog, type DeployDefaults } from './deploy-dialog';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { changed, onChange } from '../stores/changes';
import { notify } from '../stores/toasts';
import { useDeletedGuard } from '../stores/use-deleted-guard';
import { href, navigate } from '../router';
import { Badge, Button, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';

export const DEPLOYMENT_TONE = { queued: 'neutral', in_progress: 'info', running: 'ok', failed: 'bad', stopped: 'neutral' } as const;

interface DeploymentEvent {
  event?: string;
  timestamp?: string;
  message?: string;
  deployment?: Deployment;
  error?: { message?: string };
  app_name?: string;
  version?: string;
}

function lineOf(e: DeploymentEvent): string {
  const text =
    e.event === 'log'
      ? (e.message ?? '')
      : e.event === 'deployment_state'
        ? `[state] ${e.deployment?.status ?? ''}${e.deployment?.status_reason ? `: ${e.deployment.status_reason}` : ''}`
        : e.event === 'app_version_summary'
          ? `[app] ${e.app_name ?? ''} ${e.version ?? ''}`
          : `[${e.event}] ${e.error?.message ?? ''}`;
  return `${e.timestamp ? new Date(e.timestamp).toLocaleTimeString(undefined, { hour12: false }) : ''} ${text}`;
}

/** Follows the deployment's events from its start; `live` until the stream ends. */
function useDeploymentEvents(id: string, onState: () => void): { lines: string[]; live: boolean; error: string | null } {
  const [lines, setLines] = useState<string[]>([]);
  const [live, setLive] = useState(true);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setLines([]);
    setLive(true);
    setError(null);
    const it = api.stream('GET /deployments/:id/events', { params: { id }, query: { since: '7d' } })[Symbol.asyncIterator]();
    let stopped = false;
    void (async () => {
      try {
        for (;;) {
          const r = await it.next();
          if (r.done || stopped) break;
          const e = r.value as DeploymentEvent;
          if (e.event === 'sse_heartbeat') continue;
          if (e.event === 'deployment_state') onState();
          setLines((prev) => [...prev.slice(-1999), lineOf(e)]);
        }
      } catch (err) {
        if (!stopped) setError(errorMessage(err));
      } finally {
        if (!stopped) setLive(false);
      }
    })();
    return () => {
      stopped = true;
      void it.return?.();
    };
  }, [id, onState]);
  return { lines, live, error };
}

export function DeploymentView({ id }: { id: string }): React.JSX.Element {
  const [d, setD] = useState<Deployment | null>(null);
  const [apps, setApps] = useState<AppVersion[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [redeploying, setRedeploying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const { deleted, remove } = useDeletedGuard();
  const load = useCallback(async () => {
    if (deleted.current) return;
    try {
      const [dep, all] = await Promise.all([api.call('GET /deployments/:id', { params: { id } }), api.call('GET /apps', { query: { limit: 100 } })]);
      setD(dep);
      setApps(all.filter((a) => a.deployment === dep.id));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [id, deleted]);
  useEffect(() => {
    void load();
    return onChange('deployments', () => void load());
  }, [load]);
  const events = useDeploymentEvents(id, load);
  const defaults = useMemo<DeployDefaults | undefined>(
    () =>
      d
        ? {
            version: apps[0]?.version,
            entrypoint: d.entrypoint_rel_path,
            envNames: Object.keys(d.env_vars ?? {}),
            ...(d.source_path ? { sourcePath: d.source_path } : {}),
          }
        : undefined,
    [d, apps],
  );

  return (
    <section className="page">
      <nav className="breadcrumb">
        <a href={href('/apps')}>Apps</a> / <span className="mono">{id}</span>
      </nav>
      <PageHeader
        title="Deployment"
        subtitle={d ? <span className="mono">{d.id}</span> : undefined}
        actions={
          d ? (
            <>
              <Button onClick={() => setRedeploying(true)}>Redeploy</Button>
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          ) : null
        }
      />
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!d && !error ? <Spinner label="Loading deployment" /> : null}
      {d ? (
        <dl className="props" aria-label="Deployment properties">
          <dt>Status</dt>
          <dd>
            <Badge tone={DEPLOYMENT_TONE[d.status] ?? 'neutral'}>{d.status}</Badge>
            {d.status_reason ? <span className="small muted wrap-anywhere">{d.status_reason}</span> : null}
          </dd>
          <dt>Apps</dt>
          <dd>
            {apps.length
              ? apps.map((a) => (
                  <a key={a.id} href={href(`/apps/${encodeURIComponent(a.app_name)}`)}>
                    {a.app_name} {a.version}
                  </a>
                ))
              : '—'}
          </dd>
          <dt>Entrypoint</dt>
          <dd className="mono">{d.entrypoint_rel_path ?? '—'}</dd>
          <dt>Source</dt>
          <dd className="mono">{d.source_path ?? (d.source_checksum ? `zip, sha256 ${d.source_checksum.slice(0, 12)}…` : 'zip')}</dd>
          <dt>Env vars</dt>
          <dd>{Object.keys(d.env_vars ?? {}).length ? Object.keys(d.env_vars ?? {}).map((k) => <code key={k}>{k}</code>) : '—'}</dd>
          <dt>Created</dt>
          <dd>{formatTime(d.created_at)}</dd>
        </dl>
      ) : null}
      <h3>Events {events.live ? <Badge tone="ok">live</Badge> : <Badge>ended</Badge>}</h3>
      {events.error ? <ErrorBanner message={events.error} /> : null}
      <pre className="output invocation-events" role="log" aria-label="Deployment events">
        {events.lines.join('\n') || 'Waiting for events…'}
      </pre>
      <DeployDialog open={redeploying} defaults={defaults} onClose={() => setRedeploying(false)} />
      <ConfirmDialog
        open={deleting}
        title={`Delete deployment ${id}?`}
        message="Its app versions stop and can no longer be invoked."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await remove(() => api.call('DELETE /deployments/:id', { params: { id } }));
          notify('Deployment deleted');
          changed('deployments', 'invocations');
          navigate('/apps');
        }}
      />
    </section>
  );
}
