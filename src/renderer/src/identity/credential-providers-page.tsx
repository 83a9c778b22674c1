/**
 * Credential providers: the organization's external password managers (1Password service
 * accounts) that auth connections take logins from. List (search), add (name, token, cache
 * TTL), test the connection (vaults it sees, or why it cannot be used), browse the items it
 * offers, edit (name, priority, cache TTL, a new token), enable/disable and delete. The token
 * is write-only: the server never answers it, so the screen can only replace it.
 */
import { useState, useEffect } from 'react';
import type {
  CredentialProviderItem as ProviderItem,
  CredentialProviderRecord,
  CredentialProviderTestResult as TestResult,
} from '../../../shared/wire/credential-providers';
import { api, type BodyOf } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { notify, reportError } from '../stores/toasts';
import { Badge, Button, EmptyState, Field, PageHeader, Spinner, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { FormDialog } from '../components/form-dialog';

export const useCredentialProviders = createListStore<CredentialProviderRecord, { query: string }>({
  topic: 'credential-providers',
  filters: { query: '' },
  fetch: (f) => api.call('GET /org/credential_providers', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

const EMPTY_FORM = { name: '', token: '', ttl: '', priority: '' };

/**
 * Add (no `editing`) or edit a provider. An empty token field on edit keeps the stored token.
 * The caller keys it by the provider edited, so each opening starts from that provider's values.
 */
function ProviderDialog({ open, editing, onClose }: { open: boolean; editing?: CredentialProviderRecord; onClose(): void }): React.JSX.Element | null {
  const [f, setF] = useState(editing ? { ...EMPTY_FORM, name: editing.name, priority: String(editing.priority) } : EMPTY_FORM);
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement>) => setF({ ...f, [k]: e.target.value });
  const close = (): void => {
    setF(EMPTY_FORM);
    onClose();
  };
  return (
    <FormDialog
      open={open}
      title={editing ? `Edit ${editing.name}` : 'Add credential provider'}
      confirmLabel={editing ? 'Save' : 'Add provider'}
      onClose={close}
      onSubmit={async () => {
        const body: BodyOf<'PATCH /org/credential_providers/:id'> = { name: f.name.trim() };
        if (f.token) body.token = f.token;
        if (f.ttl.trim()) body.cache_ttl_seconds = Number(f.ttl);
        if (editing) {
          if (f.priority.trim()) body.priority = Number(f.priority);
          await api.call('PATCH /org/credential_providers/:id', { params: { id: editing.id }, body });
          notify(`Saved ${f.name.trim() || editing.name}`);
        } else {
          const p = await api.call('POST /org/credential_providers', {
            // An empty token is left out (not sent as ''), so the engine's message names the missing field as before.
            body: { ...body, provider_type: 'onepassword' } as BodyOf<'POST /org/credential_providers'>,
          });
          notify(`Credential provider ${p.name} added — test it to see its vaults`);
        }
        setF(EMPTY_FORM);
        changed('credential-providers');
      }}
    >
      <Field label="Name" wide>
        <input value={f.name} onChange={set('name')} autoFocus />
      </Field>
      {editing ? null : (
        <Field label="Provider" wide>
          <select value="onepassword" disabled>
            <option value="onepassword">1Password (service account)</option>
          </select>
        </Field>
      )}
      <Field
        label={editing ? 'New token' : 'Service account token'}
        hint={editing ? 'Leave empty to keep the stored token' : 'Stored encrypted; never shown again'}
        wide
      >
        <input type="password" value={f.token} onChange={set('token')} autoComplete="off" />
      </Field>
      <Field label="Cache TTL (seconds)" hint="How long item lists are reused; 0 = always ask">
        <input type="number" min={0} max={86400} value={f.ttl} onChange={set('ttl')} placeholder="default" />
      </Field>
      {editing ? (
        <Field label="Priority">
          <input type="number" value={f.priority} onChange={set('priority')} />
        </Field>
      ) : null}
    </FormDialog>
  );
}

/** The expanded row: the connection test's answer and the items the provider offers. */
function ProviderDetails({ provider, test }: { provider: CredentialProviderRecord; test?: TestResult }): React.JSX.Element {
  const [items, setItems] = useState<ProviderItem[] | null>(null);
  const [itemsError, setItemsError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = async (): Promise<void> => {
    setLoading(true);
    setItemsError(null);
    try {
      setItems((await api.call('GET /org/credential_providers/:id/items', { params: { id: provider.id } })).items);
    } catch (err) {
      setItemsError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };
  return (
    <div className="provider-details">
      {test ? (
        test.success ? (
          <p>
            <Badge tone="ok">connected</Badge>{' '}
            {test.vaults.length ? `Vaults: ${test.vaults.map((v) => v.name).join(', ')}` : 'No vault is shared with this service account.'}
          </p>
        ) : (
          <p role="alert">
            <Badge tone="bad">cannot connect</Badge> {test.error ?? 'the provider could not be used'}
          </p>
        )
      ) : (
        <p className="muted">Not tested in this window. Use Test to check the token and see the vaults it reaches.</p>
      )}
      <div className="row-actions">
        <Button busy={loading} onClick={() => void load()}>
          {items ? 'Reload items' : 'Show items'}
        </Button>
      </div>
      {itemsError ? (
        <p role="alert" className="banner banner-error">
          {itemsError}
        </p>
      ) : null}
      {loading && !items ? <Spinner label="Loading items" /> : null}
      {items ? (
        items.length ? (
          <table className="table headers">
            <thead>
              <tr>
                <th>Path</th>
                <th>Websites</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id}>
                  <td className="mono small">{i.path}</td>
                  <td className="small">{i.urls?.join(', ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No login items in the vaults this token reaches.</p>
        )
      ) : null}
    </div>
  );
}

export function CredentialProvidersPage(): React.JSX.Element {
  const list = useCredentialProviders();
  const { items, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<CredentialProviderRecord | undefined>();
  const [deleting, setDeleting] = useState<CredentialProviderRecord | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, TestResult>>({});

  const act = async (p: CredentialProviderRecord, what: string, work: () => Promise<void>): Promise<void> => {
    setBusy(`${p.id}:${what}`);
    try {
      await work();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };
  const test = (p: CredentialProviderRecord) =>
    act(p, 'test', async () => {
      const r = await api.call('POST /org/credential_providers/:id/test', { params: { id: p.id }, body: {} });
      setTests((t) => ({ ...t, [p.id]: r }));
      setOpen(p.id);
      // A failure is shown in the expanded row (with its reason), not as a success toast.
      if (r.success) notify(`${p.name}: connected (${r.vaults.length} vault${r.vaults.length === 1 ? '' : 's'})`);
    });
  const toggle = (p: CredentialProviderRecord) =>
    act(p, 'toggle', async () => {
      await api.call('PATCH /org/credential_providers/:id', { params: { id: p.id }, body: { enabled: !p.enabled } });
      notify(`${p.name} ${p.enabled ? 'disabled' : 'enabled'}`);
      changed('credential-providers');
    });

  return (
    <section className="page">
      <PageHeader
        title="Credential providers"
        subtitle="Password managers auth connections take logins from (organization-wide; changes need an org-wide key)."
        actions={
          <Button variant="primary" onClick={() => setAdding(true)}>
            Add provider
          </Button>
        }
      />
      <ListChrome
        noun="credential providers"
        placeholder="Search name or id"
        list={list}
        empty={
          <EmptyState title="No credential providers" action={<Button onClick={() => setAdding(true)}>Add provider</Button>}>
            Add a 1Password service account, then give an auth connection{' '}
            <code>
              credential: {'{'}provider, path{'}'}
            </code>{' '}
            or <code>auto: true</code>.
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>State</th>
              <th className="num">Priority</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((p) => [
              <tr key={p.id}>
                <td>
                  <button type="button" className="link" onClick={() => setOpen(open === p.id ? null : p.id)} aria-expanded={open === p.id}>
                    {p.name}
                  </button>
                  <div className="mono muted small">{p.id}</div>
                </td>
                <td>
                  <Badge>1Password</Badge>
                </td>
                <td>{p.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</td>
                <td className="num">{p.priority}</td>
                <td className="small nowrap">{formatTime(p.updated_at)}</td>
                <td className="row-actions">
                  <Button aria-label={`Test ${p.name}`} busy={busy === `${p.id}:test`} onClick={() => void test(p)}>
                    Test
                  </Button>
                  <Button aria-label={`Edit ${p.name}`} onClick={() => setEditing(p)}>
                    Edit
                  </Button>
                  <Button aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.name}`} busy={busy === `${p.id}:toggle`} onClick={() => void toggle(p)}>
                    {p.enabled ? 'Disable' : 'Enable'}
                  </Button>
                  <Button aria-label={`Delete ${p.name}`} variant="danger" onClick={() => setDeleting(p)}>
                    Delete
                  </Button>
                </td>
              </tr>,
              open === p.id ? (
                <tr key={`${p.id}-details`}>
                  <td colSpan={6}>
                    <ProviderDetails provider={p} test={tests[p.id]} />
                  </td>
                </tr>
              ) : null,
            ])}
          </tbody>
        </table>
      ) : null}
      <ProviderDialog open={adding} onClose={() => setAdding(false)} />
      <ProviderDialog key={editing?.id ?? 'none'} open={!!editing} editing={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete credential provider ${deleting?.name ?? ''}?`}
        message="Auth connections that take their login from it can no longer re-authenticate with it."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /org/credential_providers/:id', { params: { id: deleting!.id } });
          notify('Credential provider deleted');
          changed('credential-providers');
        }}
      />
    </section>
  );
}
