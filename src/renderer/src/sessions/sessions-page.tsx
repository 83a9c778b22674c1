/**
 * Sessions: the live list of the selected project (kept current by the engine's change feed,
 * see stores/live-feed.ts), filtered by status, a search query and tags; select several to
 * delete them at once; click one to open its pane. The Errors column counts each session's
 * console errors, 4xx/5xx answers and failed loads (error-count.ts), also after it ended.
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../shared/wire/sessions';
import { useSessions, deleteSessions, parseTags, type SessionStatusFilter } from '../stores/sessions';
import { useUi } from '../stores/ui';
import { notify, reportError } from '../stores/toasts';
import { Badge, Button, EmptyState, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { CreateSessionDialog } from './create-session-dialog';
import { StandbyStatus } from './standby-status';
import { href, navigate } from '../router';
import { endedLabel } from './ended-reason';
import { errorCountText, useErrorCount } from './error-count';
import '../styles/session-view.css';

function Tags({ tags }: { tags?: Record<string, string> }): React.JSX.Element | null {
  if (!tags || !Object.keys(tags).length) return null;
  return (
    <span className="tags">
      {Object.entries(tags).map(([k, v]) => (
        <Badge key={k}>
          {k}={v}
        </Badge>
      ))}
    </span>
  );
}

function ErrorsCell({ session }: { session: Session }): React.JSX.Element {
  const errors = useErrorCount(session);
  if (!errors) return <span className="muted">—</span>;
  if (!errors.count) return <span className="muted">0</span>;
  return (
    <a
      href={href(`/sessions/${encodeURIComponent(session.session_id)}/telemetry`)}
      className="tab-count"
      title="Console errors, 4xx/5xx answers and failed loads: open Telemetry"
      aria-label={`${errorCountText(errors)} errors`}
    >
      {errorCountText(errors)}
    </a>
  );
}

export function sessionLabel(s: Session): string {
  return s.name || s.session_id;
}

export function SessionsPage(): React.JSX.Element {
  const { items, filters, loading, loaded, error, setFilters, refresh } = useSessions();
  const { createSessionOpen, setCreateSessionOpen } = useUi();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState<string[] | null>(null);
  const [tagText, setTagText] = useState('');
  const [tagError, setTagError] = useState<string | null>(null);
  useEffect(() => void refresh(), [refresh]);

  const visible = new Set(items.map((s) => s.session_id));
  const chosen = [...selected].filter((id) => visible.has(id));
  // Only running sessions can be selected: with none (the Deleted view) "all" is not checked.
  const selectable = items.filter((s) => !s.deleted_at).length;
  const allChosen = selectable > 0 && chosen.length === selectable;
  const toggle = (id: string): void => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  return (
    <section className="page">
      <PageHeader
        title="Sessions"
        subtitle="Browsers running in the selected project. The list refreshes by itself."
        actions={
          <>
            {chosen.length ? (
              <Button variant="danger" onClick={() => setConfirm(chosen)}>
                Delete {chosen.length} selected
              </Button>
            ) : null}
            <Button variant="primary" onClick={() => setCreateSessionOpen(true)}>
              New session <kbd>n</kbd>
            </Button>
          </>
        }
      />
      <StandbyStatus tick={items.length} />
      <div className="toolbar">
        <input
          type="search"
          data-search
          placeholder="Search by id or name  ( / )"
          aria-label="Search sessions"
          value={filters.query}
          onChange={(e) => setFilters({ query: e.target.value })}
        />
        <select aria-label="Status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value as SessionStatusFilter })}>
          <option value="active">Active</option>
          <option value="deleted">Deleted</option>
          <option value="all">All</option>
        </select>
        <input
          aria-label="Tag filter"
          placeholder="Tags: team=qa, env=prod"
          value={tagText}
          className={tagError ? 'invalid' : ''}
          title={tagError ?? undefined}
          onChange={(e) => {
            setTagText(e.target.value);
            try {
              setFilters({ tags: parseTags(e.target.value) });
              setTagError(null);
            } catch (err) {
              setTagError((err as Error).message);
            }
          }}
        />
        {loading ? <Spinner label="Refreshing" /> : null}
      </div>
      {tagError ? <p className="form-error">{tagError}</p> : null}
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? (
        filters.query || Object.keys(filters.tags).length || filters.status !== 'active' ? (
          <EmptyState title="No sessions match these filters">Clear the search or tag filter, or pick another status.</EmptyState>
        ) : (
          <EmptyState
            title="No running sessions"
            action={
              <Button variant="primary" onClick={() => setCreateSessionOpen(true)}>
                Create a session
              </Button>
            }
          >
            Start a browser here (press <kbd>n</kbd>) or from code with <code>client.browsers.create()</code>.
          </EmptyState>
        )
      ) : null}
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th className="check">
                <input
                  type="checkbox"
                  aria-label="Select all"
                  checked={allChosen}
                  disabled={!selectable}
                  onChange={() => setSelected(allChosen ? new Set() : new Set(items.filter((s) => !s.deleted_at).map((s) => s.session_id)))}
                />
              </th>
              <th>Session</th>
              <th>Created</th>
              <th>Mode</th>
              <th>Timeout</th>
              <th className="num">Errors</th>
              <th>Tags</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.session_id} className={s.deleted_at ? 'row-muted' : ''}>
                <td className="check">
                  <input
                    type="checkbox"
                    aria-label={`Select ${sessionLabel(s)}`}
                    disabled={!!s.deleted_at}
                    checked={selected.has(s.session_id)}
                    onChange={() => toggle(s.session_id)}
                  />
                </td>
                <td>
                  <a href={href(`/sessions/${encodeURIComponent(s.session_id)}`)} className="strong">
                    {s.name || <span className="mono">{s.session_id}</span>}
                  </a>
                  {s.name ? <div className="mono small muted">{s.session_id}</div> : null}
                </td>
                <td>{formatTime(s.created_at)}</td>
                <td>
                  {s.deleted_at ? (
                    <span title={endedLabel(s, true)}>
                      <Badge tone="bad">{endedLabel(s)}</Badge>
                    </span>
                  ) : (
                    <Badge tone="ok">running</Badge>
                  )}{' '}
                  <Badge>{s.headless ? 'headless' : 'headful'}</Badge>
                  {s.stealth ? <Badge tone="info">stealth</Badge> : null}
                </td>
                <td>{s.timeout_seconds}s</td>
                <td className="num errors-cell">
                  <ErrorsCell session={s} />
                </td>
                <td>
                  <Tags tags={s.tags} />
                </td>
                <td className="row-actions">
                  <Button onClick={() => navigate(`/sessions/${encodeURIComponent(s.session_id)}`)}>Open</Button>
                  {!s.deleted_at ? (
                    <Button variant="danger" aria-label={`Delete ${sessionLabel(s)}`} onClick={() => setConfirm([s.session_id])}>
                      Delete
                    </Button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CreateSessionDialog open={createSessionOpen} onClose={() => setCreateSessionOpen(false)} />
      <ConfirmDialog
        open={!!confirm}
        title={confirm && confirm.length > 1 ? `Delete ${confirm.length} sessions?` : 'Delete this session?'}
        message="The browser is closed and everything it holds (files, processes, recordings in progress) is released."
        confirmLabel="Delete"
        danger
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const ids = confirm ?? [];
          const failures = await deleteSessions(ids);
          setSelected(new Set());
          for (const f of failures) reportError(new Error(`${f.id}: ${f.message}`));
          if (failures.length < ids.length) notify(`Deleted ${ids.length - failures.length} session${ids.length - failures.length === 1 ? '' : 's'}`);
        }}
      />
    </section>
  );
}
