/** Which telemetry categories the session records (PATCH `/browsers/{id}` `telemetry.browser`). */
import { useEffect, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { transport } from '../../transport';
import { Button } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { CATEGORIES, DEFAULT_ON } from './telemetry-format';

function enabledOf(s: Session): Set<string> {
  const cfg = s.telemetry?.browser ?? {};
  return new Set(CATEGORIES.filter((c) => cfg[c]?.enabled ?? (s.telemetry !== null && DEFAULT_ON.has(c))));
}

export function TelemetrySettings({ session, reload }: { session: Session; reload(): void }): React.JSX.Element {
  const [on, setOn] = useState(() => enabledOf(session));
  const [busy, setBusy] = useState(false);
  useEffect(() => setOn(enabledOf(session)), [session]);
  const dirty = CATEGORIES.some((c) => on.has(c) !== enabledOf(session).has(c));
  const save = async (): Promise<void> => {
    setBusy(true);
    try {
      const browser = Object.fromEntries(CATEGORIES.map((c) => [c, { enabled: on.has(c) }]));
      await transport().request('PATCH', `/browsers/${encodeURIComponent(session.session_id)}`, { body: { telemetry: { enabled: true, browser } } });
      notify('Telemetry categories saved');
      reload();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="card telemetry-settings" open={session.telemetry === null || undefined}>
      <summary>
        Recorded categories{' '}
        <span className="muted small">
          {session.telemetry === null ? '(telemetry is off for this session)' : `(${[...enabledOf(session)].join(', ') || 'none'})`}
        </span>
      </summary>
      <div className="check-row">
        {CATEGORIES.map((c) => (
          <label key={c} className="check-field">
            <input
              type="checkbox"
              aria-label={`Record ${c}`}
              checked={on.has(c)}
              onChange={(e) => {
                const next = new Set(on);
                if (e.target.checked) next.add(c);
                else next.delete(c);
                setOn(next);
              }}
            />
            {c}
          </label>
        ))}
        <Button variant="primary" busy={busy} disabled={!dirty} onClick={() => void save()}>
          Save categories
        </Button>
      </div>
    </details>
  );
}
