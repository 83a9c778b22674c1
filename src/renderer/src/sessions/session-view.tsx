/**
 * One session: header (name, id, state, delete) and the pane tabs from the registry. The
 * session object is reloaded whenever the change feed (or a mutation here) touches sessions;
 * tabs are routes (`#/sessions/<id>/<tab>`), so a pane can be linked and survives reloads.
 * Without a tab in the address it opens on the last pane chosen, else the live view.
 */
import { useCallback, useEffect, useState } from 'react';
import type { Session } from '../../../shared/wire/sessions';
import { deleteSessions, getSession } from '../stores/sessions';
import { Badge, Button, ErrorBanner, Spinner, formatTime } from '../components/ui';
import { endedLabel } from './ended-reason';
import { ConfirmDialog } from '../components/dialog';
import { href, navigate } from '../router';
import { errorMessage } from '../transport/transport';
import { SESSION_PANES } from './panes/registry';
import { notify } from '../stores/toasts';
import { onChange } from '../stores/changes';
import { usePaneKeys } from './panes/pane-tab-keys';
import { chooseInitialPane, rememberPane } from './pane-memory';
import { errorCountText, useErrorCount } from './error-count';
import '../styles/session-view.css';

export function SessionView({ id, tab }: { id: string; tab?: string }): React.JSX.Element {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const reload = useCallback(() => {
    getSession(id).then(
      (s) => {
        setSession(s);
        setError(null);
      },
      (err) => setError(errorMessage(err)),
    );
  }, [id]);
  useEffect(() => {
    setSession(null);
    reload();
    return onChange('sessions', reload);
  }, [reload]);

  const panes = SESSION_PANES.filter((p) => !(session?.deleted_at && p.needsLiveSession));
  const active = chooseInitialPane(panes, tab);
  usePaneKeys(id, panes);
  const errors = useErrorCount(session);
  // Only a pane the user picked (it is in the address) is remembered, not a fallback.
  useEffect(() => {
    if (session && tab && panes.some((p) => p.id === tab)) rememberPane(tab);
  }, [session, tab, panes]);

  return (
    <section className="page session-view">
      <nav className="breadcrumb">
        <a href={href('/sessions')}>Sessions</a> / <span className="mono">{session?.name ?? id}</span>
      </nav>
      {error ? <ErrorBanner message={error} onRetry={reload} /> : null}
      {!session && !error ? <Spinner label="Loading session" /> : null}
      {session ? (
        <>
          <header className="page-header">
            <div>
              <h1>
                {session.name ?? 'Session'} {session.deleted_at ? <Badge tone="bad">{endedLabel(session)}</Badge> : <Badge tone="ok">running</Badge>}
              </h1>
              <p className="mono muted">{session.session_id}</p>
            </div>
            <div className="page-actions">
              {!session.deleted_at ? (
                <Button variant="danger" onClick={() => setConfirm(true)}>
                  Delete session
                </Button>
              ) : null}
            </div>
          </header>
          {session.deleted_at ? (
            <p className="banner banner-warn" role="status">
              Session ended {formatTime(session.deleted_at)} ({endedLabel(session, true)}) — recorded history
            </p>
          ) : null}
          <div className="tabs" role="tablist">
            {panes.map((p) => (
              <a
                key={p.id}
                role="tab"
                aria-selected={p.id === active.id}
                className={p.id === active.id ? 'tab active' : 'tab'}
                href={href(`/sessions/${encodeURIComponent(id)}/${p.id}`)}
              >
                {p.title}
                {p.id === 'telemetry' && errors?.count ? (
                  <span className="tab-count" title="Errors: console errors, 4xx/5xx answers, failed loads" aria-label={`${errorCountText(errors)} errors`}>
                    {errorCountText(errors)}
                  </span>
                ) : null}
              </a>
            ))}
          </div>
          <div className="tab-panel" role="tabpanel">
            <active.component key={active.id} session={session} reload={reload} />
          </div>
          <ConfirmDialog
            open={confirm}
            title="Delete this session?"
            message="The browser is closed and everything it holds is released."
            confirmLabel="Delete"
            danger
            onClose={() => setConfirm(false)}
            onConfirm={async () => {
              const failures = await deleteSessions([session.session_id]);
              if (failures.length) throw new Error(failures[0].message);
              notify('Session deleted');
              navigate('/sessions');
            }}
          />
        </>
      ) : null}
    </section>
  );
}
