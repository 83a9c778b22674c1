/** Overview tab: the session object's settings and endpoints (tokens redacted on screen). */
import type { Session } from '../../../../shared/wire/sessions';
import type { PaneProps } from './pane-types';
import { Badge, formatTime } from '../../components/ui';
import { endedLabel } from '../ended-reason';
import { redactJwt } from '../session-urls';

function Row({ label, children }: { label: string; children: React.ReactNode }): React.JSX.Element {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** Kernel's typed proxy choice (0.88), else the older `proxy_id`. */
function proxyText(s: Session): string {
  if (s.proxy?.mode === 'direct') return 'direct (no proxy)';
  if (s.proxy?.name || s.proxy?.id) return s.proxy.name ?? s.proxy.id ?? '';
  if (s.proxy_id) return s.proxy_id;
  return s.proxy?.mode === 'default' ? 'default' : '—';
}

/** The time zone and locale, each with where it came from; "pending" until the browser applied them. */
function locationText(l: NonNullable<Session['location']>): string {
  return `${l.timezone} (${l.timezone_source}) · ${l.locale} (${l.locale_source})${l.pending ? ' · pending' : ''}`;
}

/** The network settings that are set, one line each. */
function networkLines(n: Session['network']): string[] {
  if (!n) return [];
  return [
    n.private_hosts ? `private hosts: ${n.private_hosts.length ? n.private_hosts.join(', ') : 'none'}` : '',
    n.allowed_hosts ? `allowed hosts: ${n.allowed_hosts.join(', ')}` : '',
    ...(n.proxy_routes ?? []).map((r) => `${r.hosts.join(', ')} → proxy ${r.proxy.id}`),
  ].filter(Boolean);
}

export function OverviewPane({ session: s }: PaneProps): React.JSX.Element {
  const telemetry = s.telemetry?.browser
    ? Object.entries(s.telemetry.browser)
        .filter(([, c]) => c?.enabled)
        .map(([k]) => k)
    : [];
  const network = networkLines(s.network);
  return (
    <div className="overview">
      <dl className="props">
        <Row label="Session id">
          <span className="mono">{s.session_id}</span>
        </Row>
        <Row label="Name">{s.name ?? '—'}</Row>
        <Row label="Created">{formatTime(s.created_at)}</Row>
        {s.deleted_at ? <Row label="Ended">{`${formatTime(s.deleted_at)} (${endedLabel(s, true)})`}</Row> : null}
        <Row label="Mode">
          <Badge>{s.headless ? 'headless' : 'headful'}</Badge> {s.stealth ? <Badge tone="info">stealth</Badge> : null}{' '}
          {s.kiosk_mode ? <Badge>kiosk</Badge> : null} {s.gpu ? <Badge>gpu</Badge> : null}
        </Row>
        <Row label="Region">{s.region}</Row>
        <Row label="Memory">{s.memory}</Row>
        <Row label="Inactivity timeout">{s.timeout_seconds} s</Row>
        <Row label="Viewport">
          {s.viewport ? `${s.viewport.width} × ${s.viewport.height}${s.viewport.refresh_rate ? ` @ ${s.viewport.refresh_rate} Hz` : ''}` : 'default'}
        </Row>
        <Row label="Start URL">{s.start_url ?? '—'}</Row>
        <Row label="Location">{s.location ? locationText(s.location) : 'region default'}</Row>
        <Row label="Profile">
          {s.profile ? (s.profile.name ?? s.profile.id) : '—'}
          {s.profile && s.profile_save_changes ? ' (saves changes)' : ''}
        </Row>
        <Row label="Proxy">{proxyText(s)}</Row>
        {network.length ? (
          <Row label="Network">
            {network.map((line) => (
              <div key={line} className="mono small">
                {line}
              </div>
            ))}
          </Row>
        ) : null}
        <Row label="Tags">{s.tags && Object.keys(s.tags).length ? Object.entries(s.tags).map(([k, v]) => <Badge key={k}>{`${k}=${v}`}</Badge>) : '—'}</Row>
        <Row label="Telemetry">{s.telemetry === null ? 'off' : telemetry.length ? telemetry.join(', ') : 'server default'}</Row>
        {s.usage ? <Row label="Uptime">{Math.round(s.usage.uptime_ms / 1000)} s</Row> : null}
      </dl>
      <h3>Endpoints</h3>
      <dl className="props">
        <Row label="CDP">
          <span className="mono small">{redactJwt(s.cdp_ws_url)}</span>
        </Row>
        <Row label="WebDriver BiDi">
          <span className="mono small">{redactJwt(s.webdriver_ws_url)}</span>
        </Row>
        <Row label="Live view">
          <span className="mono small">{redactJwt(s.browser_live_view_url)}</span>
        </Row>
        <Row label="Base URL">
          <span className="mono small">{s.base_url ?? '—'}</span>
        </Row>
      </dl>
    </div>
  );
}
