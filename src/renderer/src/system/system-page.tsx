/**
 * System: what this engine is and what it holds to — version and uptime, the store and where it
 * is, the data dir's free space, whether tenants run jailed, standby browsers and frozen
 * sessions, every limit in force beside its current usage, and the engine's last log lines
 * (from `/healthz`, `/org/limits` and `/system`; the last two need an org-wide key). Polled
 * while shown: most of it changes without a change event.
 */
import { useCallback, useState } from 'react';
import type { Health } from '../../../shared/wire/health';
import type { OrgLimits } from '../../../shared/wire/org';
import type { SystemStatus } from '../../../shared/wire/system-status';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { usePolling } from '../stores/use-polling';
import { formatBytes } from '../sessions/panes/session-api';
import { Badge, ErrorBanner, PageHeader, Spinner } from '../components/ui';

const POLL_MS = 5000;

function uptime(s: number): string {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

function Props({ label, rows }: { label: string; rows: Array<[string, React.ReactNode]> }): React.JSX.Element {
  return (
    <section className="card resource-card" aria-label={label}>
      <h3>{label}</h3>
      <dl className="props">{rows.map(([k, v]) => [<dt key={`${k}-t`}>{k}</dt>, <dd key={`${k}-d`}>{v}</dd>])}</dl>
    </section>
  );
}

const onOff = (on: boolean, yes: string, no: string): React.JSX.Element => <Badge tone={on ? 'ok' : 'warn'}>{on ? yes : no}</Badge>;

function EngineCard({ h, sys }: { h: Health; sys: SystemStatus | null }): React.JSX.Element {
  return (
    <Props
      label="Engine"
      rows={[
        ['Version', <span className="mono">{h.version}</span>],
        ['Uptime', uptime(h.uptime_seconds)],
        ['Health', onOff(h.ok, 'ok', 'degraded')],
        [
          'Store',
          <>
            {h.store.kind === 'postgres' ? 'PostgreSQL' : h.store.kind === 'sqlite' ? 'SQLite' : h.store.kind} {onOff(h.store.ok, 'reachable', 'unreachable')}
            {sys ? <span className="mono small wrap-anywhere">{sys.store.location}</span> : null}
          </>,
        ],
        [
          'Data dir',
          sys ? (
            <>
              <span className="mono small wrap-anywhere">{sys.data_dir.path}</span>
              <span data-testid="data-dir-free">
                {formatBytes(sys.data_dir.free_bytes)} free of {formatBytes(sys.data_dir.total_bytes)}
              </span>
              {h.limits.disk.low ? <Badge tone="bad">below the {formatBytes(sys.data_dir.reserve_bytes)} reserve</Badge> : null}
            </>
          ) : (
            '—'
          ),
        ],
        [
          'Jail',
          <>
            {onOff(h.jail.enabled, 'on (bubblewrap)', 'off')} {h.jail.reason ? <span className="small muted">{h.jail.reason}</span> : null}
          </>,
        ],
        ['Memory limits', h.memory.method === 'none' ? 'reported only (no memory cgroup)' : h.memory.method],
        ['Egress', h.limits.egress.loopback_denied ? 'loopback and host addresses refused to tenants' : 'loopback allowed (--egress-allow-loopback)'],
      ]}
    />
  );
}

function StandbyCard({ h }: { h: Health }): React.JSX.Element {
  const s = h.standby;
  return (
    <Props
      label="Standby"
      rows={[
        ['Standby browsers', s.enabled ? `${s.ready} of ${s.budget.count} ready${s.launching ? `, ${s.launching} launching` : ''}` : 'off'],
        [
          'Budget',
          s.enabled
            ? `${s.budget.count} browsers, ${s.budget.memory_mb} MiB, ${s.budget.launches} launches at once (${s.budget.launches_min}–${s.budget.launches_max})`
            : '—',
        ],
        ['Creates served', `${s.claimed} from a ready browser, ${s.adopted} adopted a launch, ${s.cold} launched cold`],
        ['Launch time', s.launch_ms ? `${s.launch_ms} ms (moving average)` : '—'],
        ['Idle freeze', h.freeze.method === 'off' ? 'off' : `after ${h.freeze.idle_seconds} s (${h.freeze.method}); ${h.freeze.frozen} frozen now`],
      ]}
    />
  );
}

/** One row per bound: what is in force, and how much of it is used now where the engine counts it. */
function LimitsTable({ h, org }: { h: Health; org: OrgLimits | null }): React.JSX.Element {
  const l = h.limits;
  const rows: Array<[string, React.ReactNode, React.ReactNode]> = [
    ...(org
      ? ([
          ['Concurrent sessions (organization)', org.max_concurrent_sessions, org.concurrent_sessions_used ?? '—'],
          ['Default cap per project', org.default_project_max_concurrent_sessions ?? 'none', '—'],
          ['Auth connections', org.max_auth_connections ?? 'no cap', org.auth_connections_used],
        ] as Array<[string, React.ReactNode, React.ReactNode]>)
      : []),
    ['Exec / execute calls', `${l.exec.per_session} per session, ${l.exec.per_engine} per engine`, l.exec.in_use],
    ['WebSocket connections', `${l.connections.per_session} per session, ${l.connections.per_engine} per engine`, l.connections.open],
    ['Exec output kept', formatBytes(l.exec.output_max_bytes), '—'],
    ['Tasks (pids)', l.pids.method === 'none' ? 'none' : `${l.pids.per_session} per session, ${l.pids.per_engine} per engine (${l.pids.method})`, '—'],
    ['Session disk', l.disk.method === 'loop' ? `${l.disk.per_session_mb} MiB each (own loop disk)` : 'no quota on this host', '—'],
    ['Data dir reserve', `${l.disk.reserve_mb} MiB free kept`, l.disk.low ? <Badge tone="bad">below reserve</Badge> : <Badge tone="ok">above reserve</Badge>],
    ['Watched dirs', `${l.fs_watch.max_dirs_per_session} per session${l.fs_watch.jailed ? ', jailed watcher' : ''}`, '—'],
    ['Runner message', `${formatBytes(l.runner_channel.max_message_bytes)} each, ${formatBytes(l.runner_channel.max_pending_bytes)} pending`, '—'],
  ];
  return (
    <section className="card resource-card" aria-label="Limits">
      <h3>Limits in force</h3>
      <table className="table" aria-label="Limits in force">
        <thead>
          <tr>
            <th>Bound</th>
            <th>Limit</th>
            <th className="num">In use</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([k, limit, used]) => (
            <tr key={k}>
              <td>{k}</td>
              <td>{limit}</td>
              <td className="num">{used}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function LogTail({ sys }: { sys: SystemStatus | null }): React.JSX.Element {
  return (
    <section className="card resource-card" aria-label="Engine log">
      <h3>Engine log</h3>
      {sys ? (
        <pre className="output system-log" role="log" aria-label="Engine log lines">
          {sys.log.length
            ? sys.log.map((l) => `${new Date(l.time).toLocaleTimeString(undefined, { hour12: false })} ${l.level.toUpperCase().padEnd(5)} ${l.msg}`).join('\n')
            : 'Nothing logged at the engine’s log level yet.'}
        </pre>
      ) : (
        <p className="muted small">The store location, data dir and log are shown to org-wide keys only.</p>
      )}
    </section>
  );
}

export function SystemPage(): React.JSX.Element {
  const [h, setH] = useState<Health | null>(null);
  const [org, setOrg] = useState<OrgLimits | null>(null);
  const [sys, setSys] = useState<SystemStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setH(await api.call('GET /healthz'));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
    // A project-scoped key may not read the org's limits: the engine's own bounds still show.
    setOrg(await api.call('GET /org/limits').catch(() => null));
    setSys(await api.call('GET /system').catch(() => null));
  }, []);
  usePolling(load, POLL_MS);
  return (
    <section className="page">
      <PageHeader title="System" subtitle="This engine: version, store, disk, jail, standby browsers, the limits it holds tenants to, and its log." />
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!h && !error ? <Spinner label="Loading system status" /> : null}
      {h ? (
        <>
          <div className="system-grid">
            <EngineCard h={h} sys={sys} />
            <StandbyCard h={h} />
          </div>
          <LimitsTable h={h} org={org} />
          <LogTail sys={sys} />
        </>
      ) : null}
    </section>
  );
}
