/**
 * Desktop only: the settings of the engine on this computer — port, data dir, whether its
 * sessions may reach this computer, standby browsers — as main keeps them
 * (src/main/settings-store.ts). Main validates each save and refuses a bad value with a message
 * shown here; saved settings apply when the engine restarts, which this page offers. The
 * engine's state follows main's `engine:status` events. The web console has no such page.
 */
import { useEffect, useState } from 'react';
import type { DesktopSettings, DesktopSettingsInput, EngineStatusInfo, SettingsView } from '../../../shared/ipc/contract';
import { DesktopTransport, desktopApi, transport } from '../transport';
import { errorMessage } from '../transport/transport';
import { Badge, Button, EmptyState, Field, PageHeader, Spinner } from '../components/ui';
import { notify } from '../stores/toasts';

interface Form {
  port: string;
  dataDir: string;
  egressLoopback: boolean;
  standby: string;
  standbyMemoryMb: string;
}

const toForm = (s: DesktopSettings): Form => ({
  port: String(s.port),
  dataDir: s.dataDir,
  egressLoopback: s.egressLoopback,
  standby: s.standby === null ? '' : String(s.standby),
  standbyMemoryMb: s.standbyMemoryMb === null ? '' : String(s.standbyMemoryMb),
});

/** As typed: main judges each value (and says why it refuses one); empty is the default. */
const fromForm = (f: Form): DesktopSettingsInput => ({ ...f });

const TONE: Record<EngineStatusInfo['status'], 'ok' | 'warn' | 'bad' | 'neutral'> = {
  running: 'ok',
  starting: 'warn',
  stopping: 'warn',
  stopped: 'neutral',
  error: 'bad',
};

function EngineCard({ engine, onRestart, busy }: { engine: EngineStatusInfo; onRestart: () => void; busy: boolean }): React.JSX.Element {
  return (
    <div className="card settings-engine" aria-label="Engine">
      <div className="settings-engine-head">
        <h2 className="form-title">Engine on this computer</h2>
        <Badge tone={TONE[engine.status]}>{engine.status}</Badge>
      </div>
      <dl className="props">
        <dt>Address</dt>
        <dd className="mono">{engine.url ?? '—'}</dd>
        <dt>Data dir</dt>
        <dd className="mono">{engine.dataDir ?? '—'}</dd>
        <dt>Running sessions</dt>
        <dd>{engine.sessions}</dd>
      </dl>
      {engine.status === 'error' && engine.error ? (
        <p className="form-error" role="alert">
          {engine.error}
        </p>
      ) : null}
      <div className="form-actions">
        <Button busy={busy} onClick={onRestart} disabled={engine.status === 'starting' || engine.status === 'stopping'}>
          {engine.status === 'running' ? 'Restart engine' : 'Start engine'}
        </Button>
      </div>
    </div>
  );
}

export function SettingsPage(): React.JSX.Element {
  const [view, setView] = useState<SettingsView | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [restarting, setRestarting] = useState(false);
  const t = transport();
  const desktop = t instanceof DesktopTransport ? t : null;

  useEffect(() => {
    if (!desktop) return;
    void desktop.invoke('settings:get').then(
      (v) => {
        setView(v);
        setForm(toForm(v.settings));
      },
      (err: unknown) => setError(errorMessage(err)),
    );
    return desktopApi()?.on('engine:status', (engine) => setView((v) => (v ? { ...v, engine } : v)));
  }, [desktop]);

  if (!desktop) return <EmptyState title="Settings are in the desktop app">The web console has no engine settings: a server takes them as flags.</EmptyState>;
  if (!view || !form) return error ? <p className="form-error">{error}</p> : <Spinner label="Loading settings" />;

  const restart = async (): Promise<void> => {
    setRestarting(true);
    try {
      const v = await desktop.invoke('engine:restart');
      setView(v);
      if (v.engine.status === 'running') notify('The engine restarted with the saved settings');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRestarting(false);
    }
  };

  return (
    <section className="page settings-page">
      <PageHeader title="Settings" subtitle="The engine on this computer. Saved settings apply when the engine restarts." />
      <EngineCard engine={view.engine} onRestart={() => void restart()} busy={restarting} />
      {view.restartNeeded ? (
        <div className="banner banner-warn" role="status">
          <span>Saved settings differ from those the engine runs with.</span>
          <Button variant="primary" busy={restarting} onClick={() => void restart()}>
            Restart now
          </Button>
        </div>
      ) : null}
      <form
        className="card form-grid"
        aria-label="Engine settings"
        onSubmit={async (e) => {
          e.preventDefault();
          setSaving(true);
          setError(null);
          try {
            const v = await desktop.invoke('settings:save', fromForm(form));
            setView(v);
            setForm(toForm(v.settings));
            notify(v.restartNeeded ? 'Saved — restart the engine to apply' : 'Saved');
          } catch (err) {
            setError(errorMessage(err));
          } finally {
            setSaving(false);
          }
        }}
      >
        <Field label="Port" hint="0: a free port at each start. 1024–65535 to keep one address.">
          <input inputMode="numeric" value={form.port} onChange={(e) => setForm({ ...form, port: e.target.value })} />
        </Field>
        <Field label="Data dir" hint={`Empty: ${view.defaultDataDir}. Sessions, profiles, replays and the database live here.`} wide>
          <input className="mono" value={form.dataDir} placeholder={view.defaultDataDir} onChange={(e) => setForm({ ...form, dataDir: e.target.value })} />
        </Field>
        <Field label="Standby browsers" hint="Ready-launched browsers for fast creates. Empty: as many as the memory below holds; 0: none.">
          <input inputMode="numeric" value={form.standby} placeholder="default" onChange={(e) => setForm({ ...form, standby: e.target.value })} />
        </Field>
        <Field label="Standby memory (MB)" hint="Empty: 10% of RAM, at most 2048.">
          <input
            inputMode="numeric"
            value={form.standbyMemoryMb}
            placeholder="default"
            onChange={(e) => setForm({ ...form, standbyMemoryMb: e.target.value })}
          />
        </Field>
        <label className="check-field field-wide">
          <input type="checkbox" checked={form.egressLoopback} onChange={(e) => setForm({ ...form, egressLoopback: e.target.checked })} />
          <span>
            Let sessions reach this computer (localhost and its own addresses), e.g. a local dev server.
            <small className="muted"> A server engine refuses this unless started with --egress-allow-loopback.</small>
          </span>
        </label>
        {error ? (
          <p className="form-error field-wide" role="alert">
            {error}
          </p>
        ) : null}
        <div className="form-actions field-wide">
          <Button type="submit" variant="primary" busy={saving}>
            Save settings
          </Button>
        </div>
      </form>
    </section>
  );
}
