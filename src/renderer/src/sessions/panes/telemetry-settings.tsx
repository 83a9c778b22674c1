/**
 * Which telemetry categories the session records, `platform` included, and which CDP commands
 * `control` leaves out (`control.cdp.excluded_methods`): PATCH `/browsers/{id}` `telemetry.browser`.
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { api } from '../../transport/api-client';
import { Button } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { CATEGORIES, DEFAULT_ON } from './telemetry-format';
import { ExcludedCdpMethods } from './excluded-cdp-methods';

function enabledOf(s: Session): Set<string> {
  const cfg = s.telemetry?.browser ?? {};
  return new Set(CATEGORIES.filter((c) => cfg[c]?.enabled ?? (s.telemetry !== null && DEFAULT_ON.has(c))));
}

function excludedOf(s: Session): Set<string> {
  return new Set(s.telemetry?.browser?.control?.cdp?.excluded_methods ?? []);
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

export function TelemetrySettings({ session, reload }: { session: Session; reload(): void }): React.JSX.Element {
  const [on, setOn] = useState(() => enabledOf(session));
  const [excluded, setExcluded] = useState(() => excludedOf(session));
  const [busy, setBusy] = useState(false);
  // Reset to what is stored only when that changes: a refetch of the same session (the change
  // feed, polling) is a new object and must not wipe choices the user has not saved yet.
  const stored = JSON.stringify([[...enabledOf(session)], [...excludedOf(session)]]);
  useEffect(() => {
    setOn(enabledOf(session));
    setExcluded(excludedOf(session));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `stored` stands for the session's settings
  }, [stored]);
  const dirty = !sameSet(on, enabledOf(session)) || !sameSet(excluded, excludedOf(session));
  const save = async (): Promise<void> => {
    setBusy(true);
    try {
      const browser: Record<string, unknown> = Object.fromEntries(CATEGORIES.map((c) => [c, { enabled: on.has(c) }]));
      browser.control = { enabled: on.has('control'), cdp: { excluded_methods: [...excluded] } };
      await api.call('PATCH /browsers/:id', { params: { id: session.session_id }, body: { telemetry: { enabled: true, browser } } });
      notify('Telemetry settings saved');
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
      </div>
      <ExcludedCdpMethods excluded={excluded} onChange={setExcluded} />
      <div className="check-row">
        <Button variant="primary" busy={busy} disabled={!dirty} onClick={() => void save()}>
          Save categories
        </Button>
      </div>
    </details>
  );
}
