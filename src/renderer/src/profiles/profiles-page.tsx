/**
 * Profiles: saved browser state (cookies, storage) sessions and pools start from. The list
 * shows which running sessions use each one (a session row names its profile), with Download
 * (the profile's archive, `tar.zst`) and Delete; `#/profiles/<id>` is one profile's detail.
 */
import { useEffect, useMemo, useState } from 'react';
import type { Profile } from '../../../shared/wire/profiles';
import type { Session } from '../../../shared/wire/sessions';
import { api } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { useActiveSessions } from '../stores/active-sessions';
import { changed } from '../stores/changes';
import { notify, reportError } from '../stores/toasts';
import { formatBytes } from '../sessions/panes/session-api';
import { href, navigate } from '../router';
import { Button, EmptyState, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';

export const useProfiles = createListStore<Profile, { query: string }>({
  topic: 'profiles',
  filters: { query: '' },
  fetch: (f) => api.call('GET /profiles', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

const label = (p: Profile): string => p.name ?? p.id;

/** Active sessions by the profile they use. */
function useUsers(): Map<string, Session[]> {
  const sessions = useActiveSessions((s) => s.items);
  useEffect(() => void useActiveSessions.getState().refresh(), []); // then the change feed keeps it current
  return useMemo(() => {
    const m = new Map<string, Session[]>();
    for (const s of sessions) if (s.profile) m.set(s.profile.id, [...(m.get(s.profile.id) ?? []), s]);
    return m;
  }, [sessions]);
}

async function download(p: Profile): Promise<void> {
  try {
    const r = await api.download('GET /profiles/:id_or_name/download', { opts: { params: { id_or_name: p.id } }, filename: `${label(p)}.tar.zst` });
    if (r.saved) notify(`Downloaded ${label(p)} (${formatBytes(r.bytes)})`);
  } catch (err) {
    reportError(err);
  }
}

function UsedBy({ sessions }: { sessions: Session[] | undefined }): React.JSX.Element {
  if (!sessions?.length) return <span className="muted">—</span>;
  return (
    <span className="wrap-anywhere">
      {sessions.map((s, i) => (
        <span key={s.session_id}>
          {i ? ', ' : ''}
          <a className="mono small" href={href(`/sessions/${encodeURIComponent(s.session_id)}`)}>
            {s.name ?? s.session_id}
          </a>
        </span>
      ))}
    </span>
  );
}

function ProfileDetail({ profile, users, onDelete }: { profile: Profile; users: Session[] | undefined; onDelete(): void }): React.JSX.Element {
  return (
    <section className="page">
      <nav className="breadcrumb">
        <a href={href('/profiles')}>Profiles</a> / <span className="mono">{label(profile)}</span>
      </nav>
      <PageHeader
        title={`Profile ${label(profile)}`}
        actions={
          <>
            <Button onClick={() => void download(profile)}>Download</Button>
            <Button variant="danger" onClick={onDelete}>
              Delete
            </Button>
          </>
        }
      />
      <dl className="props" aria-label="Profile properties">
        <dt>Id</dt>
        <dd className="mono">{profile.id}</dd>
        <dt>Name</dt>
        <dd>{profile.name ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(profile.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(profile.updated_at)}</dd>
        <dt>Last used</dt>
        <dd>{profile.last_used_at ? formatTime(profile.last_used_at) : 'never'}</dd>
        <dt>Used by</dt>
        <dd>
          <UsedBy sessions={users} />
        </dd>
      </dl>
    </section>
  );
}

export function ProfilesPage({ id }: { id?: string }): React.JSX.Element {
  const list = useProfiles();
  const { items, loaded, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const users = useUsers();
  const [deleting, setDeleting] = useState<Profile | null>(null);
  const current = id ? items.find((p) => p.id === id || p.name === id) : undefined;

  const confirm = (
    <ConfirmDialog
      open={!!deleting}
      title={`Delete profile ${deleting ? label(deleting) : ''}?`}
      message={
        deleting && users.get(deleting.id)?.length
          ? `${users.get(deleting.id)!.length} running session(s) use it; they keep running but cannot save back to it.`
          : 'Sessions and pools can no longer start from it.'
      }
      confirmLabel="Delete"
      danger
      onClose={() => setDeleting(null)}
      onConfirm={async () => {
        await api.call('DELETE /profiles/:id_or_name', { params: { id_or_name: deleting!.id } });
        notify('Profile deleted');
        changed('profiles');
        if (id) navigate('/profiles');
      }}
    />
  );

  if (id && current)
    return (
      <>
        <ProfileDetail profile={current} users={users.get(current.id)} onDelete={() => setDeleting(current)} />
        {confirm}
      </>
    );
  if (id && loaded)
    return (
      <EmptyState title="No such profile">
        No profile {id} in this project. <a href={href('/profiles')}>All profiles</a>.
      </EmptyState>
    );

  return (
    <section className="page">
      <PageHeader title="Profiles" subtitle="Saved browser state (cookies, local storage) sessions and pools start from." />
      <ListChrome
        noun="profiles"
        placeholder="Search name or id"
        list={list}
        empty={
          <EmptyState title="No profiles">
            Create one with profiles.create, or save a session&apos;s state into one (profile with save_changes); sessions then start with{' '}
            <code>
              profile: {'{'}name{'}'}
            </code>
            .
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table" aria-label="Profiles">
          <thead>
            <tr>
              <th>Name</th>
              <th>Created</th>
              <th>Last used</th>
              <th>Used by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((p) => (
              <tr key={p.id}>
                <td>
                  <a href={href(`/profiles/${encodeURIComponent(p.id)}`)}>{p.name ?? <span className="muted">(no name)</span>}</a>
                  <div className="mono muted small">{p.id}</div>
                </td>
                <td className="small nowrap">{formatTime(p.created_at)}</td>
                <td className="small nowrap">{p.last_used_at ? formatTime(p.last_used_at) : 'never'}</td>
                <td>
                  <UsedBy sessions={users.get(p.id)} />
                </td>
                <td className="row-actions">
                  <Button aria-label={`Download ${label(p)}`} onClick={() => void download(p)}>
                    Download
                  </Button>
                  <Button aria-label={`Delete ${label(p)}`} variant="danger" onClick={() => setDeleting(p)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {confirm}
    </section>
  );
}
