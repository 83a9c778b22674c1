/**
 * What every screen shows while the engine does not answer (stores/engine-reach.ts): a banner
 * saying since when the data is stale, and the screen itself inside a disabled fieldset — every
 * button and field is disabled at once, links (navigation) still work — drawn faded. Both go
 * away by themselves when the change feed reconnects.
 */
import type { ReactNode } from 'react';
import { staleTime, useEngineReach } from '../stores/engine-reach';
import '../styles/session-view.css';

export function EngineDownBanner(): React.JSX.Element | null {
  const { down, lastLiveAt } = useEngineReach();
  if (!down) return null;
  return (
    <div className="banner banner-error engine-down" role="alert">
      <span>
        <strong>The engine is not reachable.</strong> Actions are disabled; what you see is stale — last updated {staleTime(lastLiveAt)}. Reconnecting by
        itself…
      </span>
    </div>
  );
}

export function StaleWhenDown({ children }: { children: ReactNode }): React.JSX.Element {
  const down = useEngineReach((s) => s.down);
  return (
    <fieldset className={down ? 'screen-fieldset stale' : 'screen-fieldset'} disabled={down} aria-disabled={down || undefined}>
      {children}
    </fieldset>
  );
}
