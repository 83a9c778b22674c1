/**
 * Starting an invocation from the screen: app, version and action picked from the running app
 * versions, a JSON payload (checked here so a typo is caught before the request), sent async so
 * the dialog closes at once and the screen follows the run's events.
 */
import { useEffect, useState } from 'react';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { Field, Spinner } from '../components/ui';
import { FormDialog } from '../components/form-dialog';
import { invocableApps, type AppVersion } from './app-stores';

export function InvokeDialog({ open, onClose, onInvoked }: { open: boolean; onClose(): void; onInvoked(id: string): void }): React.JSX.Element | null {
  const [apps, setApps] = useState<AppVersion[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [f, setF] = useState({ app: '', version: '', action: '', payload: '' });
  useEffect(() => {
    if (!open) return;
    setApps(null);
    setLoadError(null);
    invocableApps().then(
      (list) => {
        setApps(list);
        const first = list[0];
        setF({ app: first?.app_name ?? '', version: first?.version ?? '', action: first?.actions[0]?.name ?? '', payload: '' });
      },
      (err) => setLoadError(errorMessage(err)),
    );
  }, [open]);
  const names = [...new Set((apps ?? []).map((a) => a.app_name))];
  const versions = (apps ?? []).filter((a) => a.app_name === f.app);
  const current = versions.find((a) => a.version === f.version);
  const pick = (app: string, version?: string): void => {
    const v = (apps ?? []).find((a) => a.app_name === app && (version === undefined || a.version === version));
    setF({ ...f, app, version: v?.version ?? '', action: v?.actions.some((x) => x.name === f.action) ? f.action : (v?.actions[0]?.name ?? '') });
  };
  return (
    <FormDialog
      open={open}
      title="New invocation"
      confirmLabel="Invoke"
      wide
      onClose={onClose}
      onSubmit={async () => {
        if (!f.app || !f.version || !f.action) throw new Error('Pick an app, a version and an action (deploy an app first if the lists are empty).');
        if (f.payload.trim()) {
          try {
            JSON.parse(f.payload);
          } catch (err) {
            throw new Error(`The payload is not valid JSON: ${(err as Error).message}`);
          }
        }
        const inv = await api.call('POST /invocations', {
          body: { app_name: f.app, version: f.version, action_name: f.action, async: true, ...(f.payload.trim() ? { payload: f.payload.trim() } : {}) },
        });
        notify(`Invocation ${inv.id} started`);
        changed('invocations');
        onInvoked(inv.id);
      }}
    >
      {loadError ? (
        <p className="form-error field-wide" role="alert">
          {loadError}
        </p>
      ) : null}
      {!apps && !loadError ? <Spinner label="Loading apps" /> : null}
      {apps && !apps.length ? <p className="muted field-wide">No running app version: deploy an app first, then its actions can be invoked here.</p> : null}
      <Field label="App">
        <select value={f.app} onChange={(e) => pick(e.target.value)} disabled={!names.length}>
          {names.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </Field>
      <Field label="Version">
        <select value={f.version} onChange={(e) => pick(f.app, e.target.value)} disabled={!versions.length}>
          {versions.map((v) => (
            <option key={v.id}>{v.version}</option>
          ))}
        </select>
      </Field>
      <Field label="Action">
        <select value={f.action} onChange={(e) => setF({ ...f, action: e.target.value })} disabled={!current}>
          {(current?.actions ?? []).map((a) => (
            <option key={a.name}>{a.name}</option>
          ))}
        </select>
      </Field>
      <Field label="Payload (JSON)" hint="Optional; passed to the action as its payload" wide>
        <textarea
          rows={5}
          className="mono"
          value={f.payload}
          placeholder='{"url": "https://example.com"}'
          onChange={(e) => setF({ ...f, payload: e.target.value })}
        />
      </Field>
    </FormDialog>
  );
}
