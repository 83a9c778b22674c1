/**
 * API keys: filter (status, search, sort), create (plaintext shown once with a copy button),
 * rotate (the new key shown once; the old one keeps working for a grace period), delete.
 */
import { useEffect, useState } from 'react';
import type { ApiKey, CreatedApiKey } from '../../../shared/wire/org';
import { createApiKey, deleteApiKey, rotateApiKey, useApiKeys, type ApiKeyFilters } from '../stores/api-keys';
import { useProjects } from '../stores/projects';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { SecretReveal } from '../components/secret-reveal';
import { notify } from '../stores/toasts';
import { errorMessage } from '../transport/transport';

const optInt = (v: string): number | null => (v.trim() === '' ? null : Number(v));

function CreateKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (k: CreatedApiKey) => void;
}): React.JSX.Element | null {
  const projects = useProjects((s) => s.items);
  const [form, setForm] = useState({ name: '', days: '', project: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setForm({ name: '', days: '', project: '' });
      setError(null);
      void useProjects.getState().refresh();
    }
  }, [open]);
  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const k = await createApiKey({ name: form.name, days_to_expire: optInt(form.days), project_id: form.project || null });
      onCreated(k);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title="Create API key"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void submit()}>
            Create key
          </Button>
        </>
      }
    >
      <form
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field label="Key name">
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} autoFocus />
        </Field>
        <Field label="Expires after (days)" hint="Empty = never expires. At most 3650.">
          <input type="number" min={1} value={form.days} onChange={(e) => setForm({ ...form, days: e.target.value })} />
        </Field>
        <Field label="Project" hint="A project key can only act in that project.">
          <select value={form.project} onChange={(e) => setForm({ ...form, project: e.target.value })}>
            <option value="">Organization-wide</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

function RotateDialog({
  apiKey,
  onClose,
  onRotated,
}: {
  apiKey: ApiKey | null;
  onClose: () => void;
  onRotated: (k: CreatedApiKey) => void;
}): React.JSX.Element | null {
  const [form, setForm] = useState({ days: '', grace: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setForm({ days: '', grace: '' });
    setError(null);
  }, [apiKey]);
  const submit = async (): Promise<void> => {
    if (!apiKey) return;
    setBusy(true);
    setError(null);
    try {
      const body: { days_to_expire?: number | null; expire_in_days?: number | null } = {};
      if (form.days.trim()) body.days_to_expire = Number(form.days);
      if (form.grace.trim()) body.expire_in_days = Number(form.grace);
      onRotated(await rotateApiKey(apiKey.id, body));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={!!apiKey}
      title={`Rotate ${apiKey?.name ?? ''}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void submit()}>
            Rotate key
          </Button>
        </>
      }
    >
      <p>A new key with the same name and project is issued. The old key keeps working for the grace period.</p>
      <div className="form-grid">
        <Field label="New key expires after (days)" hint="Empty = same lifetime as the old key.">
          <input type="number" min={1} value={form.days} onChange={(e) => setForm({ ...form, days: e.target.value })} />
        </Field>
        <Field label="Old key stops working in (days)" hint="Empty = 7 days; 0 = now.">
          <input type="number" min={0} value={form.grace} onChange={(e) => setForm({ ...form, grace: e.target.value })} />
        </Field>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

export function ApiKeysPage(): React.JSX.Element {
  const { items, filters, loaded, error, refresh, setFilters } = useApiKeys();
  const [creating, setCreating] = useState(false);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [revealed, setRevealed] = useState<{ title: string; key: CreatedApiKey } | null>(null);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <section className="page">
      <PageHeader
        title="API keys"
        subtitle="Keys authenticate clients and this console. Only masked keys are listed."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create API key
          </Button>
        }
      />
      <div className="toolbar">
        <input
          type="search"
          data-search
          aria-label="Search keys"
          placeholder="Search name, creator, project, key prefix  ( / )"
          value={filters.query}
          onChange={(e) => setFilters({ query: e.target.value })}
        />
        <select aria-label="Key status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value as ApiKeyFilters['status'] })}>
          <option value="active">Active</option>
          <option value="deleted">Deleted</option>
          <option value="all">All</option>
        </select>
        <select
          aria-label="Sort by"
          value={`${filters.sort_by}:${filters.sort_direction}`}
          onChange={(e) => {
            const [sort_by, sort_direction] = e.target.value.split(':') as [ApiKeyFilters['sort_by'], ApiKeyFilters['sort_direction']];
            setFilters({ sort_by, sort_direction });
          }}
        >
          <option value="created_at:desc">Newest first</option>
          <option value="created_at:asc">Oldest first</option>
          <option value="name:asc">Name A–Z</option>
          <option value="expires_at:asc">Expiring soonest</option>
        </select>
      </div>
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? <EmptyState title="No keys match">Change the filters, or create a key for a client.</EmptyState> : null}
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Project</th>
              <th>Created</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((k) => {
              const expired = !!k.expires_at && Date.parse(k.expires_at) <= Date.now();
              return (
                <tr key={k.id} className={k.deleted_at ? 'row-muted' : ''}>
                  <td>
                    <span className="strong">{k.name}</span>{' '}
                    {k.deleted_at ? <Badge tone="bad">deleted</Badge> : expired ? <Badge tone="warn">expired</Badge> : null}
                  </td>
                  <td className="mono">{k.masked_key}</td>
                  <td>{k.project_name ?? <span className="muted">Organization-wide</span>}</td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{k.expires_at ? formatTime(k.expires_at) : <span className="muted">never</span>}</td>
                  <td className="row-actions">
                    {!k.deleted_at ? (
                      <>
                        <Button onClick={() => setRotating(k)}>Rotate</Button>
                        <Button variant="danger" onClick={() => setDeleting(k)}>
                          Delete
                        </Button>
                      </>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setRevealed({ title: `API key ${key.name} created`, key });
        }}
      />
      <RotateDialog
        apiKey={rotating}
        onClose={() => setRotating(null)}
        onRotated={(key) => {
          setRotating(null);
          setRevealed({ title: `API key ${key.name} rotated`, key });
        }}
      />
      <Dialog
        open={!!revealed}
        title={revealed?.title ?? ''}
        onClose={() => setRevealed(null)}
        footer={
          <Button variant="primary" onClick={() => setRevealed(null)}>
            Done
          </Button>
        }
      >
        {revealed ? <SecretReveal secret={revealed.key.key} label="New API key" /> : null}
      </Dialog>
      <ConfirmDialog
        open={!!deleting}
        title={`Delete API key ${deleting?.name ?? ''}?`}
        message="Clients using this key are refused from now on. This cannot be undone."
        confirmLabel="Delete key"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await deleteApiKey(deleting!.id);
          notify(`Deleted API key ${deleting!.name}`);
        }}
      />
    </section>
  );
}
