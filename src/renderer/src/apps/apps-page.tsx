/**
 * Apps: every deployed app with its versions (from `/apps`, joined with their deployments'
 * status), Deploy (upload a zip), and `#/apps/<name>`: one app's versions, each linking to
 * the deployment that produced it (events, redeploy), and its latest invocations, each
 * linking to `#/invocations/<id>`.
 */
import { useEffect, useMemo, useState } from 'react';
import { useDeployments, type AppVersion, type Deployment } from './app-stores';
import type { Invocation } from './invocations-page';
import { api } from '../transport/api-client';
import { onChange } from '../stores/changes';
import { reportError } from '../stores/toasts';
import { DeployDialog } from './deploy-dialog';
import { DEPLOYMENT_TONE } from './deployment-view';
import { href } from '../router';
import { Badge, Button, EmptyState, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';

interface AppRow {
  name: string;
  versions: Array<AppVersion & { status?: Deployment['status']; created_at?: string }>;
}

/** Apps by name, each with its versions newest deployment first. */
function useApps(): { apps: AppRow[]; loaded: boolean; loading: boolean; error: string | null; refresh(): Promise<void> } {
  const { items, loaded, loading, error, refresh } = useDeployments();
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const apps = useMemo(() => {
    const by = new Map<string, AppRow>();
    for (const d of items)
      for (const a of d.apps) {
        const row = by.get(a.app_name) ?? { name: a.app_name, versions: [] };
        row.versions.push({ ...a, status: d.status, created_at: d.created_at });
        by.set(a.app_name, row);
      }
    return [...by.values()].sort((x, y) => x.name.localeCompare(y.name));
  }, [items]);
  return { apps, loaded, loading, error, refresh };
}

const STATUS_TONE = { queued: 'neutral', running: 'info', succeeded: 'ok', failed: 'bad' } as const;

function AppDetail({ app }: { app: AppRow }): React.JSX.Element {
  const [mine, setMine] = useState<Invocation[]>([]);
  useEffect(() => {
    const load = (): void => void api.call('GET /invocations', { query: { app_name: app.name, limit: 20 } }).then(setMine, reportError);
    load();
    return onChange('invocations', load);
  }, [app.name]);
  return (
    <>
      <table className="table" aria-label="Versions">
        <thead>
          <tr>
            <th>Version</th>
            <th>Actions</th>
            <th>Deployment</th>
            <th>Deployed</th>
          </tr>
        </thead>
        <tbody>
          {app.versions.map((v) => (
            <tr key={v.id}>
              <td>{v.version}</td>
              <td className="small">{v.actions.map((a) => a.name).join(', ') || '—'}</td>
              <td>
                <a className="mono small" href={href(`/deployments/${encodeURIComponent(v.deployment)}`)}>
                  {v.deployment}
                </a>{' '}
                {v.status ? <Badge tone={DEPLOYMENT_TONE[v.status] ?? 'neutral'}>{v.status}</Badge> : null}
              </td>
              <td className="small nowrap">{formatTime(v.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <section className="card" aria-label="Latest invocations">
        <h3>Latest invocations</h3>
        {mine.length ? (
          <ul>
            {mine.map((i) => (
              <li key={i.id}>
                <a href={href(`/invocations/${encodeURIComponent(i.id)}`)}>
                  {i.action_name} <span className="mono small">{i.id}</span>
                </a>{' '}
                <Badge tone={STATUS_TONE[i.status]}>{i.status}</Badge> <span className="muted small">{formatTime(i.started_at)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted small">No invocations of {app.name} yet.</p>
        )}
      </section>
    </>
  );
}

export function AppsPage({ name }: { name?: string }): React.JSX.Element {
  const { apps, loaded, loading, error, refresh } = useApps();
  const [deploying, setDeploying] = useState(false);
  const current = name ? apps.find((a) => a.name === name) : undefined;
  const deploy = (
    <Button variant="primary" onClick={() => setDeploying(true)}>
      Deploy
    </Button>
  );
  return (
    <section className="page">
      {name ? (
        <nav className="breadcrumb">
          <a href={href('/apps')}>Apps</a> / <span className="mono">{name}</span>
        </nav>
      ) : null}
      <PageHeader title={name ? `App ${name}` : 'Apps'} subtitle="Code deployed to this engine; its actions run as invocations." actions={deploy} />
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loading && !loaded ? <Spinner label="Loading apps" /> : null}
      {name && loaded && !current ? (
        <EmptyState title="No such app">
          No deployed version of {name}. <a href={href('/apps')}>All apps</a>.
        </EmptyState>
      ) : null}
      {current ? <AppDetail app={current} /> : null}
      {!name && loaded && !apps.length && !error ? (
        <EmptyState title="No apps" action={<Button onClick={() => setDeploying(true)}>Deploy</Button>}>
          Upload a zip of an app directory (or use deployments.create of the official client); its actions can then be invoked.
        </EmptyState>
      ) : null}
      {!name && apps.length ? (
        <table className="table" aria-label="Apps">
          <thead>
            <tr>
              <th>App</th>
              <th>Versions</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {apps.map((a) => (
              <tr key={a.name}>
                <td>
                  <a href={href(`/apps/${encodeURIComponent(a.name)}`)}>{a.name}</a>
                </td>
                <td>
                  {a.versions.map((v) => (
                    <span key={v.id} className="nowrap">
                      {v.version} {v.status ? <Badge tone={DEPLOYMENT_TONE[v.status] ?? 'neutral'}>{v.status}</Badge> : null}{' '}
                    </span>
                  ))}
                </td>
                <td className="small">{[...new Set(a.versions.flatMap((v) => v.actions.map((x) => x.name)))].join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <DeployDialog open={deploying} onClose={() => setDeploying(false)} />
    </section>
  );
}
