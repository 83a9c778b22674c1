/**
 * The app shell: sign-in gate (web console), sidebar, the routed screen, toasts, help overlay
 * and keyboard shortcuts. Routes: #/sessions, #/sessions/<id>[/<tab>], #/pools[/<id>],
 * #/profiles[/<id>], #/credentials[/<id>], #/apps[/<name>], #/deployments/<id>,
 * #/invocations[/<id>], #/system, #/admin/projects,
 * #/admin/limits, #/admin/api-keys, #/admin/credential-providers, #/admin/telemetry-destinations, #/admin/audit-logs, #/admin/audit-export, #/extensions, #/connections (desktop).
 */
import { useCallback, useEffect } from 'react';
import { useRoute } from './router';
import { useAuth } from './stores/auth';
import { changed } from './stores/changes';
import { ALL_TOPICS, startLiveFeed } from './stores/live-feed';
import { useConnections } from './stores/connections';
import { Sidebar } from './shell/sidebar';
import { Toasts } from './shell/toasts';
import { HelpOverlay } from './shell/help-overlay';
import { SignIn } from './shell/sign-in';
import { useShortcuts } from './shell/shortcuts';
import { ConnectionsPage } from './shell/connections-page';
import { SessionsPage } from './sessions/sessions-page';
import { SessionView } from './sessions/session-view';
import { ProjectsPage } from './admin/projects-page';
import { OrgLimitsPage } from './admin/org-limits-page';
import { ApiKeysPage } from './admin/api-keys-page';
import { AuditLogsPage } from './admin/audit-logs-page';
import { AuditDestinationsPage } from './admin/audit-destinations-page';
import { ProxiesPage } from './identity/proxies-page';
import { AuthConnectionsPage } from './identity/auth-connections-page';
import { InvocationsPage } from './apps/invocations-page';
import { ExtensionsPage } from './extensions/extensions-page';
import { CredentialProvidersPage } from './identity/credential-providers-page';
import { TelemetryDestinationsPage } from './admin/telemetry-destinations-page';
import { PoolsPage } from './pools/pools-page';
import { ProfilesPage } from './profiles/profiles-page';
import { CredentialsPage } from './identity/credentials-page';
import { AppsPage } from './apps/apps-page';
import { DeploymentView } from './apps/deployment-view';
import { SystemPage } from './system/system-page';
import { EmptyState, Spinner } from './components/ui';
import { href } from './router';

function Screen(): React.JSX.Element {
  const [area, a, b] = useRoute();
  if (area === 'sessions' && a) return <SessionView id={a} tab={b} />;
  if (area === 'sessions' || !area) return <SessionsPage />;
  if (area === 'connections') return <ConnectionsPage />;
  if (area === 'proxies') return <ProxiesPage />;
  if (area === 'auth-connections') return <AuthConnectionsPage />;
  if (area === 'invocations') return <InvocationsPage id={a} />;
  if (area === 'pools') return <PoolsPage key={a ?? ''} id={a} />;
  if (area === 'profiles') return <ProfilesPage id={a} />;
  if (area === 'credentials') return <CredentialsPage key={a ?? ''} id={a} />;
  if (area === 'apps') return <AppsPage name={a} />;
  if (area === 'deployments' && a) return <DeploymentView key={a} id={a} />;
  if (area === 'system') return <SystemPage />;
  if (area === 'extensions') return <ExtensionsPage />;
  if (area === 'admin') {
    if (a === 'projects') return <ProjectsPage />;
    if (a === 'limits') return <OrgLimitsPage />;
    if (a === 'api-keys') return <ApiKeysPage />;
    if (a === 'credential-providers') return <CredentialProvidersPage />;
    if (a === 'telemetry-destinations') return <TelemetryDestinationsPage />;
    if (a === 'audit-logs') return <AuditLogsPage />;
    if (a === 'audit-export') return <AuditDestinationsPage />;
  }
  return (
    <EmptyState title="Nothing here">
      This address does not match a screen. <a href={href('/sessions')}>Go to Sessions</a>.
    </EmptyState>
  );
}

export function App(): React.JSX.Element {
  const { status, check } = useAuth();
  useEffect(() => {
    void check();
  }, [check]);
  const refreshAll = useCallback(() => changed(...ALL_TOPICS), []);
  useShortcuts(refreshAll);
  // Desktop: another connection is another engine, whose feed must be followed instead.
  const connection = useConnections((s) => s.list.find((c) => c.active)?.id);
  useEffect(() => (status === 'signed-in' ? startLiveFeed() : undefined), [status, connection]);

  if (status === 'checking')
    return (
      <div className="center">
        <Spinner label="Loading" />
      </div>
    );
  if (status === 'signed-out')
    return (
      <>
        <SignIn />
        <Toasts />
      </>
    );
  return (
    <div className="layout">
      <Sidebar />
      <main className="content">
        <Screen />
      </main>
      <Toasts />
      <HelpOverlay />
    </div>
  );
}
