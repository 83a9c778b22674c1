/**
 * Credentials (Kernel's `/credentials`): named login values for one domain, used by auth
 * connections. Values are write-only — the list shows names, domains and whether values and a
 * TOTP secret are set; `#/credentials/<id>` lists the stored key names, never a value.
 */
import { useCallback, useEffect, useState } from 'react';
import type { CredentialRecord as Credential } from '../../../shared/wire/identity';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { createListStore } from '../stores/list-store';
import { changed, onChange } from '../stores/changes';
import { notify } from '../stores/toasts';
import { href, navigate } from '../router';
import { Badge, Button, EmptyState, ErrorBanner, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { CredentialDialog } from './credential-dialog';

export const useCredentials = createListStore<Credential, { query: string }>({
  topic: 'credentials',
  filters: { query: '' },
  fetch: (f) => api.call('GET /credentials', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

function Secrets({ c }: { c: Credential }): React.JSX.Element {
  return (
    <>
      {c.has_values ? <Badge tone="ok">values set</Badge> : <Badge>no values</Badge>} {c.has_totp_secret ? <Badge tone="info">TOTP</Badge> : null}{' '}
      {c.sso_provider ? <Badge>SSO: {c.sso_provider}</Badge> : null}
    </>
  );
}

function DeleteCredential({ target, onClose, after }: { target: Credential | null; onClose(): void; after?(): void }): React.JSX.Element {
  return (
    <ConfirmDialog
      open={!!target}
      title={`Delete credential ${target?.name ?? ''}?`}
      message="Auth connections using it can no longer log in with it."
      confirmLabel="Delete"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await api.call('DELETE /credentials/:id_or_name', { params: { id_or_name: target!.id } });
        notify('Credential deleted');
        changed('credentials');
        after?.();
      }}
    />
  );
}

function CredentialDetail({ id }: { id: string }): React.JSX.Element {
  const [c, setC] = useState<Credential | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const load = useCallback(async () => {
    try {
      setC(await api.call('GET /credentials/:id_or_name', { params: { id_or_name: id } }));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [id]);
  useEffect(() => {
    void load();
    return onChange('credentials', () => void load());
  }, [load]);
  return (
    <section className="page">
      <nav className="breadcrumb">
        <a href={href('/credentials')}>Credentials</a> / <span className="mono">{c?.name ?? id}</span>
      </nav>
      <PageHeader
        title={`Credential ${c?.name ?? ''}`}
        actions={
          c ? (
            <>
              <Button onClick={() => setEditing(true)}>Edit</Button>
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          ) : null
        }
      />
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!c && !error ? <Spinner label="Loading credential" /> : null}
      {c ? (
        <dl className="props" aria-label="Credential properties">
          <dt>Id</dt>
          <dd className="mono">{c.id}</dd>
          <dt>Domain</dt>
          <dd>{c.domain}</dd>
          <dt>Stored values</dt>
          <dd>{c.value_keys?.length ? c.value_keys.map((k) => <code key={k}>{k}</code>) : <span className="muted">none</span>}</dd>
          <dt>Secrets</dt>
          <dd>
            <Secrets c={c} />
          </dd>
          <dt>Created</dt>
          <dd>{formatTime(c.created_at)}</dd>
          <dt>Updated</dt>
          <dd>{formatTime(c.updated_at)}</dd>
        </dl>
      ) : null}
      <CredentialDialog open={editing} credential={c} onClose={() => setEditing(false)} />
      <DeleteCredential target={deleting ? c : null} onClose={() => setDeleting(false)} after={() => navigate('/credentials')} />
    </section>
  );
}

export function CredentialsPage({ id }: { id?: string }): React.JSX.Element {
  if (id) return <CredentialDetail id={id} />;
  return <CredentialList />;
}

function CredentialList(): React.JSX.Element {
  const list = useCredentials();
  const { items, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Credential | null>(null);
  return (
    <section className="page">
      <PageHeader
        title="Credentials"
        subtitle="Login values for a site, used by auth connections. Values are write-only."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            New credential
          </Button>
        }
      />
      <ListChrome
        noun="credentials"
        placeholder="Search name or domain"
        list={list}
        empty={
          <EmptyState title="No credentials" action={<Button onClick={() => setCreating(true)}>New credential</Button>}>
            Store a site&apos;s login values once; auth connections then log in with them.
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table" aria-label="Credentials">
          <thead>
            <tr>
              <th>Name</th>
              <th>Domain</th>
              <th>Secrets</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id}>
                <td>
                  <a href={href(`/credentials/${encodeURIComponent(c.id)}`)}>{c.name}</a>
                  <div className="mono muted small">{c.id}</div>
                </td>
                <td className="wrap-anywhere">{c.domain}</td>
                <td>
                  <Secrets c={c} />
                </td>
                <td className="small nowrap">{formatTime(c.updated_at)}</td>
                <td className="row-actions">
                  <Button aria-label={`Delete ${c.name}`} variant="danger" onClick={() => setDeleting(c)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CredentialDialog open={creating} credential={null} onClose={() => setCreating(false)} />
      <DeleteCredential target={deleting} onClose={() => setDeleting(null)} />
    </section>
  );
}
