/**
 * One line under the Sessions header: the engine's standby browsers (ready of its budget) and
 * how many sessions are frozen while idle, from `/healthz` (issue 14). Refreshed with the list,
 * and every 10 s while shown (standby browsers change without any session event).
 */
import { useEffect, useState } from 'react';
import { api } from '../transport/api-client';
import type { Health } from '../../../shared/wire/health';

export function StandbyStatus({ tick }: { tick: number }): React.JSX.Element | null {
  const [h, setH] = useState<Health | null>(null);
  useEffect(() => {
    let gone = false;
    const load = () =>
      void api
        .call('GET /healthz')
        .then((v) => !gone && setH(v))
        .catch(() => {});
    load();
    const timer = setInterval(load, 10_000);
    return () => {
      gone = true;
      clearInterval(timer);
    };
  }, [tick]);
  if (!h?.standby) return null;
  const s = h.standby;
  const standby = s.enabled
    ? `Standby browsers: ${s.ready} of ${s.budget.count} ready${s.launching ? `, ${s.launching} launching` : ''}`
    : 'Standby browsers: off';
  const freeze = h.freeze && h.freeze.method !== 'off' ? ` · idle sessions freeze after ${h.freeze.idle_seconds} s (${h.freeze.frozen} frozen now)` : '';
  return (
    <p className="muted standby-status" data-testid="standby-status">
      {standby}
      {freeze}
    </p>
  );
}
