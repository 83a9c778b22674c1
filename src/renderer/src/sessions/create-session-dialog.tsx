/**
 * New session dialog with every create option of wire §3.6, grouped: basics, viewport,
 * profile & network, tags, telemetry, advanced. Launching takes a few seconds (Chromium
 * starts and answers CDP), so the button shows progress; a rejected option shows the server's
 * message in the dialog.
 */
import { useEffect, useState } from 'react';
import { Dialog } from '../components/dialog';
import { Button, Field } from '../components/ui';
import { createSession } from '../stores/sessions';
import { notify } from '../stores/toasts';
import { errorMessage } from '../transport/transport';
import { api } from '../transport/api-client';
import { navigate } from '../router';
import { emptySessionForm, sessionBody, TELEMETRY_CATEGORIES, type SessionForm } from './session-form';

/** Names for the profile/proxy inputs' suggestions; absent when the server has no such list. */
type ProxyChoice = { id: string; name?: string; status?: 'available' | 'unavailable'; status_reason?: string };

function useSuggestions(open: boolean): { profiles: string[]; proxies: ProxyChoice[] } {
  const [s, setS] = useState<{ profiles: string[]; proxies: ProxyChoice[] }>({ profiles: [], proxies: [] });
  useEffect(() => {
    if (!open) return;
    void Promise.all([
      api.call('GET /profiles', { query: { limit: 100 } }).catch(() => []),
      api.call('GET /proxies', { query: { limit: 100 } }).catch(() => []),
    ]).then(([profiles, proxies]) => setS({ profiles: profiles.map((p) => p.name).filter((n): n is string => !!n), proxies }));
  }, [open]);
  return s;
}

export function CreateSessionDialog({ open, onClose }: { open: boolean; onClose: () => void }): React.JSX.Element | null {
  const [f, setF] = useState<SessionForm>(emptySessionForm);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const suggestions = useSuggestions(open);
  useEffect(() => {
    if (open) setError(null);
  }, [open]);
  const set = <K extends keyof SessionForm>(k: K, v: SessionForm[K]): void => setF((prev) => ({ ...prev, [k]: v }));
  const check = (k: 'headless' | 'stealth' | 'kiosk_mode' | 'gpu', label: string, hint: string): React.JSX.Element => (
    <label className="check-field" title={hint}>
      <input type="checkbox" checked={f[k]} onChange={(e) => set(k, e.target.checked)} /> {label}
    </label>
  );

  const submit = async (): Promise<void> => {
    setError(null);
    let body: Record<string, unknown>;
    try {
      body = sessionBody(f);
    } catch (err) {
      setError(errorMessage(err));
      return;
    }
    setBusy(true);
    try {
      const s = await createSession(body);
      notify(`Session ${s.name ?? s.session_id} is running`);
      setF(emptySessionForm());
      onClose();
      navigate(`/sessions/${encodeURIComponent(s.session_id)}`);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      wide
      title="New session"
      onClose={onClose}
      footer={
        <>
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
          {busy ? <span className="muted">Launching Chromium…</span> : null}
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void submit()}>
            Create session
          </Button>
        </>
      }
    >
      <form
        className="create-session"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <fieldset>
          <legend>Basics</legend>
          <div className="form-grid">
            <Field label="Name" hint="Unique among active sessions of the project.">
              <input value={f.name} onChange={(e) => set('name', e.target.value)} />
            </Field>
            <Field label="Start URL">
              <input value={f.start_url} placeholder="https://example.com" onChange={(e) => set('start_url', e.target.value)} />
            </Field>
            <Field label="Inactivity timeout (seconds)" hint="10 – 259200; default 60.">
              <input type="number" value={f.timeout_seconds} onChange={(e) => set('timeout_seconds', e.target.value)} />
            </Field>
          </div>
          <div className="check-row">
            {check('headless', 'Headless', 'No visible window (no live view).')}
            {check('stealth', 'Stealth', 'Reduce automation fingerprints.')}
            {check('kiosk_mode', 'Kiosk mode', 'Full-screen, no browser UI.')}
            {check('gpu', 'GPU', 'Hardware acceleration.')}
          </div>
        </fieldset>
        <fieldset>
          <legend>Viewport</legend>
          <div className="form-grid form-grid-3">
            <Field label="Width">
              <input type="number" value={f.viewport_width} placeholder="1920" onChange={(e) => set('viewport_width', e.target.value)} />
            </Field>
            <Field label="Height">
              <input type="number" value={f.viewport_height} placeholder="1080" onChange={(e) => set('viewport_height', e.target.value)} />
            </Field>
            <Field label="Refresh rate (Hz)">
              <input type="number" value={f.viewport_refresh_rate} placeholder="25" onChange={(e) => set('viewport_refresh_rate', e.target.value)} />
            </Field>
          </div>
        </fieldset>
        <fieldset>
          <legend>Profile and network</legend>
          <div className="form-grid">
            <Field label="Profile">
              <div className="input-group">
                <select aria-label="Profile by" value={f.profile_by} onChange={(e) => set('profile_by', e.target.value as SessionForm['profile_by'])}>
                  <option value="none">None</option>
                  <option value="name">By name</option>
                  <option value="id">By id</option>
                </select>
                <input
                  aria-label="Profile name or id"
                  list="bd-profiles"
                  disabled={f.profile_by === 'none'}
                  value={f.profile}
                  onChange={(e) => set('profile', e.target.value)}
                />
                <datalist id="bd-profiles">
                  {suggestions.profiles.map((p) => (
                    <option key={p} value={p} />
                  ))}
                </datalist>
              </div>
            </Field>
            <label className="check-field align-end">
              <input
                type="checkbox"
                disabled={f.profile_by === 'none'}
                checked={f.profile_save_changes}
                onChange={(e) => set('profile_save_changes', e.target.checked)}
              />{' '}
              Save profile changes when the session ends
            </label>
            <Field label="Proxy id">
              <input list="bd-proxies" value={f.proxy_id} onChange={(e) => set('proxy_id', e.target.value)} />
              <ProxyWarning proxy={suggestions.proxies.find((p) => f.proxy_id.trim() && (p.id === f.proxy_id.trim() || p.name === f.proxy_id.trim()))} />
              <datalist id="bd-proxies">
                {suggestions.proxies.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </datalist>
            </Field>
            <Field label="Invocation id" hint="Ties the session to an invocation's lifetime.">
              <input value={f.invocation_id} onChange={(e) => set('invocation_id', e.target.value)} />
            </Field>
          </div>
        </fieldset>
        <fieldset>
          <legend>Tags</legend>
          {f.tags.map((t, i) => (
            <div className="input-group tag-row" key={i}>
              <input
                aria-label={`Tag ${i + 1} key`}
                placeholder="key"
                value={t.key}
                onChange={(e) =>
                  set(
                    'tags',
                    f.tags.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)),
                  )
                }
              />
              <input
                aria-label={`Tag ${i + 1} value`}
                placeholder="value"
                value={t.value}
                onChange={(e) =>
                  set(
                    'tags',
                    f.tags.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)),
                  )
                }
              />
              <Button
                variant="ghost"
                aria-label={`Remove tag ${i + 1}`}
                onClick={() =>
                  set(
                    'tags',
                    f.tags.filter((_, j) => j !== i),
                  )
                }
              >
                Remove
              </Button>
            </div>
          ))}
          <Button variant="ghost" onClick={() => set('tags', [...f.tags, { key: '', value: '' }])}>
            + Add tag
          </Button>
        </fieldset>
        <fieldset>
          <legend>Telemetry</legend>
          <div className="check-row">
            {(['default', 'off', 'custom'] as const).map((m) => (
              <label key={m} className="check-field">
                <input type="radio" name="telemetry" checked={f.telemetry === m} onChange={() => set('telemetry', m)} />{' '}
                {m === 'default' ? 'Server default' : m === 'off' ? 'Off' : 'Choose categories'}
              </label>
            ))}
          </div>
          {f.telemetry === 'custom' ? (
            <div className="check-row">
              {TELEMETRY_CATEGORIES.map((c) => (
                <label key={c} className="check-field">
                  <input type="checkbox" checked={!!f.categories[c]} onChange={(e) => set('categories', { ...f.categories, [c]: e.target.checked })} /> {c}
                </label>
              ))}
            </div>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Advanced</legend>
          <Field label="Chrome policy (JSON)" hint='Enterprise policies, e.g. {"BookmarkBarEnabled": true}' wide>
            <textarea className="mono" rows={3} value={f.chrome_policy} onChange={(e) => set('chrome_policy', e.target.value)} />
          </Field>
        </fieldset>
        <button type="submit" hidden />
      </form>
    </Dialog>
  );
}

/** The last check found the chosen proxy unavailable: say so (and why) before the create fails or goes nowhere. */
function ProxyWarning({ proxy }: { proxy: ProxyChoice | undefined }): React.JSX.Element | null {
  if (proxy?.status !== 'unavailable') return null;
  return (
    <p className="banner banner-warn" role="status">
      Proxy {proxy.name ?? proxy.id} was unavailable at its last check{proxy.status_reason ? `: ${proxy.status_reason}` : ''}.
    </p>
  );
}
