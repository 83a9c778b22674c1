/**
 * Desktop only: which server the app talks to (the local engine or a remote one), with a
 * health dot, plus links to manage connections and to the local engine's settings. Warns when keys are only obfuscated.
 */
import { useEffect } from 'react';
import { useConnections } from '../stores/connections';
import { href } from '../router';
import { reportError } from '../stores/toasts';

export function HealthDot({ health, title }: { health: string; title?: string }): React.JSX.Element {
  const tone = health === 'ok' ? 'ok' : health === 'down' ? 'bad' : 'unknown';
  return <span className={`dot dot-${tone}`} title={title ?? health} aria-label={`health: ${health}`} />;
}

export function ConnectionSwitcher(): React.JSX.Element {
  const { list, vault, init, activate } = useConnections();
  useEffect(() => init(), [init]);
  const active = list.find((c) => c.active);
  return (
    <div className="account">
      <label className="sidebar-field">
        <span>Connection {active ? <HealthDot health={active.health} title={active.healthMessage ?? active.health} /> : null}</span>
        <select value={active?.id ?? ''} onChange={(e) => void activate(e.target.value).catch(reportError)}>
          {list.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
              {c.health === 'down' ? ' (unreachable)' : ''}
            </option>
          ))}
        </select>
      </label>
      {vault?.weak ? (
        <p className="sidebar-warn" role="alert">
          Keys are stored with weak protection (no system keyring: {vault.backend}).
        </p>
      ) : null}
      <span className="account-links">
        <a className="link" href={href('/connections')}>
          Manage connections
        </a>
        <a className="link" href={href('/settings')}>
          Settings
        </a>
      </span>
    </div>
  );
}
