/**
 * Overview tab: the session object's settings and endpoints (tokens redacted on screen, each
 * with a Copy button that copies it with its token), and, while it runs, the Connect card.
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import type { PaneProps } from './pane-types';
import { Badge, formatTime } from '../../components/ui';
import { endedLabel } from '../ended-reason';
import { redactJwt } from '../session-urls';
import { CopyButton } from '../copy-button';
import { ConnectCard } from '../connect-card';

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

function Endpoint({ url, what }: { url: string | undefined; what: string }): React.JSX.Element {
  return (
    <span className="copy-field">
      <span className="mono small" title={what}>
        {redactJwt(url)}
      </span>
      {url ? <CopyButton text={url} label={`Copy ${what} URL`} what={`${what} URL`} /> : null}
    </span>
  );
}

/**
 * Uptime ticking between refetches: `usage.uptime_ms` is as of the answer, so the time since it
 * arrived is added (an ended session's stays as recorded).
 */
function useUptimeMs(s: Session): number | undefined {
  const [receivedAt, setReceivedAt] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = Date.now();
    setReceivedAt(t);
    setNow(t);
  }, [s]);
  const running = !s.deleted_at && !!s.usage;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);
  if (!s.usage) return undefined;
  return s.usage.uptime_ms + (running ? Math.max(0, now - receivedAt) : 0);
}

function duration(ms: number): string {
  const sec = Math.floor(ms / 1000);
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  return h ? `${h} h ${m} min ${sec % 60} s` : m ? `${m} min ${sec % 60} s` : `${sec} s`;
}

export function OverviewPane({ session: s }: PaneProps): React.JSX.Element {
  const uptime = useUptimeMs(s);
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
        {uptime !== undefined ? (
          <Row label="Uptime">
            <span aria-label="Uptime">{duration(uptime)}</span>
          </Row>
        ) : null}
      </dl>
      <h3>Endpoints</h3>
      <dl className="props">
        <Row label="CDP">
          <Endpoint url={s.deleted_at ? undefined : s.cdp_ws_url} what="CDP" />
        </Row>
        <Row label="WebDriver BiDi">
          <Endpoint url={s.deleted_at ? undefined : s.webdriver_ws_url} what="WebDriver BiDi" />
        </Row>
        <Row label="Live view">
          <Endpoint url={s.deleted_at ? undefined : s.browser_live_view_url} what="Live view" />
        </Row>
        <Row label="Base URL">
          <span className="mono small">{s.base_url ?? '—'}</span>
        </Row>
      </dl>
      {s.deleted_at ? null : <ConnectCard session={s} />}
    </div>
  );
}
