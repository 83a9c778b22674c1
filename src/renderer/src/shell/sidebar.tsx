/**
 * The sidebar: navigation (Sessions, Pools, Profiles, Apps, … System; Admin: Projects, Org limits, API keys, Credential
 * providers, Audit logs), the project the UI acts in, and at the bottom who/where: the
 * connection switcher with its health dot (desktop) or the signed-in key with Sign out (web).
 */
import { useEffect } from 'react';
import { href, useRoute } from '../router';
import { useUi } from '../stores/ui';
import { useProjects } from '../stores/projects';
import { useAuth } from '../stores/auth';
import { transport } from '../transport';
import { ConnectionSwitcher } from './connection-switcher';
import { changed } from '../stores/changes';
import { LogoIcon } from '../components/icons';
import { useLiveFeed } from '../stores/live-feed';

/** Sidebar entries; `match`: the route prefixes (`|`-separated) the entry is current for. */
const NAV: Array<{ section?: string; path: string; label: string; match: string }> = [
  { path: '/sessions', label: 'Sessions', match: 'sessions' },
  { path: '/pools', label: 'Pools', match: 'pools' },
  { path: '/profiles', label: 'Profiles', match: 'profiles' },
  { path: '/apps', label: 'Apps', match: 'apps|deployments' },
  { path: '/invocations', label: 'Invocations', match: 'invocations' },
  { path: '/proxies', label: 'Proxies', match: 'proxies' },
  { path: '/credentials', label: 'Credentials', match: 'credentials' },
  { path: '/auth-connections', label: 'Auth connections', match: 'auth-connections' },
  { path: '/extensions', label: 'Extensions', match: 'extensions' },
  { path: '/system', label: 'System', match: 'system' },
  { section: 'Admin', path: '/admin/projects', label: 'Projects', match: 'admin/projects' },
  { path: '/admin/limits', label: 'Org limits', match: 'admin/limits' },
  { path: '/admin/api-keys', label: 'API keys', match: 'admin/api-keys' },
  { path: '/admin/credential-providers', label: 'Credential providers', match: 'admin/credential-providers' },
  { path: '/admin/telemetry-destinations', label: 'Telemetry export', match: 'admin/telemetry-destinations' },
  { path: '/admin/audit-logs', label: 'Audit logs', match: 'admin/audit-logs' },
  { path: '/admin/audit-export', label: 'Audit export', match: 'admin/audit-export' },
];

function ProjectPicker(): React.JSX.Element {
  const { projectId, setProject } = useUi();
  const projects = useProjects((s) => s.items);
  // A project-scoped key sees only its project: the picker names it instead of offering others.
  const keyProject = useAuth((s) => s.who?.project_id ?? null);
  useEffect(() => {
    void useProjects.getState().refresh();
  }, []);
  if (keyProject)
    return (
      <label className="sidebar-field">
        <span>Project</span>
        <select value={keyProject} disabled title="This API key is scoped to one project">
          <option value={keyProject}>{projects.find((p) => p.id === keyProject)?.name ?? keyProject}</option>
        </select>
      </label>
    );
  return (
    <label className="sidebar-field">
      <span>Project</span>
      <select
        value={projectId ?? ''}
        onChange={(e) => {
          setProject(e.target.value || undefined);
          changed('sessions');
        }}
      >
        <option value="">Default project</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
            {p.status === 'archived' ? ' (archived)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

function WebAccount(): React.JSX.Element {
  const { who, signOut } = useAuth();
  return (
    <div className="account">
      <div className="account-who" title={who?.masked_key}>
        <span className="dot dot-ok" aria-hidden />
        <span>
          {who?.name ?? 'Signed in'}
          <small className="mono">{who?.masked_key}</small>
        </span>
      </div>
      <button type="button" className="link" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  );
}

/** Whether screens follow the engine live; while reconnecting they show what they last had. */
function FeedStatus(): React.JSX.Element {
  const status = useLiveFeed((s) => s.status);
  const label = status === 'live' ? 'Live updates' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <div className="feed-status" data-feed-status={status} role="status">
      <span className={status === 'live' ? 'dot dot-ok' : 'dot dot-warn'} aria-hidden />
      {label}
    </div>
  );
}

export function Sidebar(): React.JSX.Element {
  const route = useRoute().join('/');
  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden>
          <LogoIcon />
        </span>
        Browserdeck
      </div>
      <ProjectPicker />
      <ul className="nav">
        {NAV.map((n) => {
          const current = n.match.split('|').some((m) => route.startsWith(m));
          return (
            <li key={n.path}>
              {n.section ? <div className="nav-section">{n.section}</div> : null}
              <a href={href(n.path)} className={current ? 'active' : ''} aria-current={current ? 'page' : undefined}>
                {n.label}
              </a>
            </li>
          );
        })}
      </ul>
      <div className="sidebar-footer">
        <FeedStatus />
        {transport().kind === 'desktop' ? <ConnectionSwitcher /> : <WebAccount />}
        <button type="button" className="link help-link" onClick={() => useUi.getState().setHelpOpen(true)}>
          Keyboard shortcuts <kbd>?</kbd>
        </button>
      </div>
    </nav>
  );
}
