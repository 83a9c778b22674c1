/**
 * Inspect tab (issue 17): the session's tabs, each with **Inspect** (Chromium's DevTools on that
 * tab, through the engine) and **Inspect read-only** (the proxy refuses what would change the
 * page); the session's network as a HAR download, with bodies on request (and a switch for the
 * session to keep response bodies); and a Playwright trace from the session's
 * files opened in the trace viewer. DevTools and the trace viewer open in a new browser tab on
 * the web and in a native window in the desktop app (`open-inspector.ts`).
 */
import { useCallback, useEffect, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api, type DevtoolsTarget } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Button, EmptyState, ErrorBanner, Field, Spinner } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { formatBytes } from './session-api';
import { openInspector } from './open-inspector';
import '../../styles/inspect.css';

type Tab = DevtoolsTarget;

function TabsSection({ session }: PaneProps): React.JSX.Element {
  const [tabs, setTabs] = useState<Tab[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const list = await api.call('GET /browsers/:id/cdp/json/list', { params: { id: session.session_id } });
      setTabs(list.filter((t) => t.type === 'page'));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [session]);
  useEffect(() => void load(), [load]);

  const inspect = async (t: Tab, mode: 'full' | 'read'): Promise<void> => {
    setBusy(`${t.id}:${mode}`);
    try {
      const link = await api.call('GET /browsers/:id/devtools', { params: { id: session.session_id }, query: { target: t.id, mode, format: 'json' } });
      await openInspector(link.url, `DevTools — ${t.title || t.url || t.id}${mode === 'read' ? ' (read-only)' : ''}`);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-label="Tabs">
      <div className="toolbar">
        <h3>Tabs</h3>
        <span className="spacer" />
        <Button variant="ghost" onClick={() => void load()}>
          Refresh
        </Button>
      </div>
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!tabs && !error ? <Spinner label="Loading tabs" /> : null}
      {tabs && !tabs.length ? <EmptyState title="No tabs open">The browser has no page open.</EmptyState> : null}
      {tabs?.length ? (
        <table className="table inspect-tabs">
          <thead>
            <tr>
              <th>Title</th>
              <th>URL</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tabs.map((t) => (
              <tr key={t.id}>
                <td>{t.title || '—'}</td>
                <td className="mono small">{t.url}</td>
                <td className="row-actions">
                  <Button variant="primary" aria-label={`Inspect ${t.title || t.url}`} busy={busy === `${t.id}:full`} onClick={() => void inspect(t, 'full')}>
                    Inspect
                  </Button>
                  <Button aria-label={`Inspect ${t.title || t.url} read-only`} busy={busy === `${t.id}:read`} onClick={() => void inspect(t, 'read')}>
                    Inspect read-only
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function HarSection({ session, reload }: PaneProps): React.JSX.Element {
  const [bodies, setBodies] = useState(false);
  const [busy, setBusy] = useState(false);
  const [switching, setSwitching] = useState(false);
  const network = session.telemetry?.browser?.network;
  const keeping = !!network?.enabled && 'bodies' in network && network.bodies === true;
  const download = async (): Promise<void> => {
    setBusy(true);
    try {
      const res = await api.download('GET /browsers/:id/har', {
        opts: { params: { id: session.session_id }, query: bodies ? { bodies: true } : {} },
        filename: `${session.session_id}.har`,
      });
      if (res.saved) notify(`Downloaded HAR (${formatBytes(res.bytes)})`);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  // The session's `telemetry.browser.network.bodies` switch: bodies of responses from then on.
  const keep = async (on: boolean): Promise<void> => {
    setSwitching(true);
    try {
      const network = on ? { enabled: true, bodies: true } : { bodies: false };
      await api.call('PATCH /browsers/:id', { params: { id: session.session_id }, body: { telemetry: { browser: { network } } } });
      notify(on ? 'Response bodies are kept from now on' : 'Response bodies are no longer kept');
      reload();
    } catch (err) {
      reportError(err);
    } finally {
      setSwitching(false);
    }
  };
  return (
    <section aria-label="Network (HAR)">
      <h3>Network (HAR)</h3>
      <p className="muted small">The session’s requests from its network telemetry, as HAR 1.2 (turn network telemetry on in the Telemetry tab).</p>
      <div className="toolbar">
        <label className="check-field">
          <input type="checkbox" checked={bodies} onChange={(e) => setBodies(e.target.checked)} /> With bodies (requests, and the responses kept; 64 KB each)
        </label>
        <Button busy={busy} onClick={() => void download()}>
          Download HAR
        </Button>
      </div>
      {session.deleted_at ? null : (
        <div className="toolbar">
          <span className="muted small">
            {keeping
              ? 'Response bodies are kept while the session runs (the newest 16 MB).'
              : 'Response bodies are not kept for this session: a HAR with bodies has request bodies only.'}
          </span>
          <Button variant="ghost" busy={switching} onClick={() => void keep(!keeping)}>
            {keeping ? 'Stop keeping response bodies' : 'Keep response bodies'}
          </Button>
        </div>
      )}
    </section>
  );
}

/** Where `playwright/execute` with `trace: true` writes its traces. */
const TRACES_DIR = '/tmp/traces';

function TraceSection({ session }: PaneProps): React.JSX.Element {
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [traces, setTraces] = useState<string[]>([]);
  useEffect(() => {
    // The directory exists only once a trace was written: look for it in its parent first, so an
    // untraced session costs no 404 (which the browser would log on every visit of this tab).
    const list = (path: string) => api.call('GET /browsers/:id/fs/list_files', { params: { id: session.session_id }, query: { path } });
    const parent = TRACES_DIR.slice(0, TRACES_DIR.lastIndexOf('/')) || '/';
    list(parent)
      .then(async (entries) => (entries.some((f) => f.is_dir && f.path.replace(/\/+$/, '') === TRACES_DIR) ? list(TRACES_DIR) : []))
      .then((files) => setTraces(files.filter((f) => !f.is_dir && f.path.endsWith('.zip')).map((f) => f.path)))
      .catch(() => setTraces([]));
  }, [session]);
  const open = async (file = path): Promise<void> => {
    setBusy(true);
    try {
      const link = await api.call('GET /browsers/:id/trace', { params: { id: session.session_id }, query: { path: file, format: 'json' } });
      await openInspector(link.url, `Trace — ${link.path}`);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-label="Playwright trace">
      <h3>Playwright trace</h3>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void open();
        }}
      >
        <Field label="Trace file" hint="A trace zip in the session’s files (playwright/execute with trace: true writes them to /tmp/traces)">
          <input className="mono" placeholder="/tmp/traces/….zip" value={path} onChange={(e) => setPath(e.target.value)} />
        </Field>
        <Button type="submit" busy={busy} disabled={!path.trim()} className="align-end">
          Open in trace viewer
        </Button>
      </form>
      {traces.length ? (
        <ul className="plain-list">
          {traces.map((t) => (
            <li key={t}>
              <span className="mono small">{t}</span>{' '}
              <Button variant="ghost" aria-label={`Open trace ${t}`} onClick={() => void open(t)}>
                Open
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export function InspectPane(props: PaneProps): React.JSX.Element {
  const live = !props.session.deleted_at;
  return (
    <div className="inspect-pane">
      {live ? <TabsSection {...props} /> : null}
      <HarSection {...props} />
      {live ? <TraceSection {...props} /> : null}
    </div>
  );
}
