/** The Deployments table of the Apps and Invocations screens: status, the app versions each produced, reason; each links to its events. */
import { useEffect } from 'react';
import { useDeployments } from './app-stores';
import { Badge, EmptyState, ErrorBanner, formatTime } from '../components/ui';
import { href } from '../router';

const TONE = { queued: 'neutral', in_progress: 'info', running: 'ok', failed: 'bad', stopped: 'neutral' } as const;

export function DeploymentsCard(): React.JSX.Element {
  const { items, loaded, error, refresh } = useDeployments();
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  return (
    <section className="card deployments-card" aria-label="Deployments section">
      <h3>Deployments</h3>
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? (
        <EmptyState title="No deployments">
          Deploy an app first: upload a zip with POST /deployments (the official client's deployments.create); its actions can then be invoked here.
        </EmptyState>
      ) : null}
      {items.length ? (
        <table className="table" aria-label="Deployments">
          <thead>
            <tr>
              <th>Deployment</th>
              <th>App · version</th>
              <th>Status</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  <a className="mono small" href={href(`/deployments/${encodeURIComponent(d.id)}`)}>
                    {d.id}
                  </a>
                  <div className="muted small">{d.entrypoint_rel_path}</div>
                </td>
                <td>
                  {d.apps.length
                    ? d.apps.map((a) => (
                        <div key={a.id}>
                          {a.app_name} · {a.version} <span className="muted small">({a.actions.map((x) => x.name).join(', ')})</span>
                        </div>
                      ))
                    : '—'}
                </td>
                <td>
                  <Badge tone={TONE[d.status] ?? 'neutral'}>{d.status}</Badge>
                  {d.status_reason ? <div className="small muted wrap-anywhere">{d.status_reason}</div> : null}
                </td>
                <td className="small nowrap">{formatTime(d.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
