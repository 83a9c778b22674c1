/**
 * Proxies: list (search), create (type, protocol, country or a custom host/port/credentials,
 * bypass hosts), check (POST /proxies/{id}/check → status), rename, delete, and the details
 * (config; a custom proxy's password is never shown — the server only says it has one).
 */
import { useState, useEffect } from 'react';
import type { ProxyRecord } from '../../../shared/wire/identity';
import { api, type BodyOf } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { notify, reportError } from '../stores/toasts';
import { Badge, Button, EmptyState, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { FormDialog } from '../components/form-dialog';

const TYPES = ['datacenter', 'isp', 'residential', 'mobile', 'custom'] as const;

export const useProxies = createListStore<ProxyRecord, { query: string }>({
  topic: 'proxies',
  filters: { query: '' },
  fetch: (f) => api.call('GET /proxies', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

function CreateProxy({ open, onClose }: { open: boolean; onClose(): void }): React.JSX.Element | null {
  const [f, setF] = useState({ type: 'custom' as string, name: '', protocol: 'http', country: '', host: '', port: '', username: '', password: '', bypass: '' });
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setF({ ...f, [k]: e.target.value });
  return (
    <FormDialog
      open={open}
      title="New proxy"
      confirmLabel="Create proxy"
      onClose={onClose}
      onSubmit={async () => {
        // type and protocol come from selects whose options are exactly the schema's values.
        const body: ProxyBody = { type: f.type as ProxyBody['type'], protocol: f.protocol as ProxyBody['protocol'] };
        if (f.name.trim()) body.name = f.name.trim();
        if (f.type === 'custom')
          body.config = {
            host: f.host.trim(),
            port: Number(f.port),
            ...(f.username ? { username: f.username } : {}),
            ...(f.password ? { password: f.password } : {}),
          };
        else if (f.country.trim()) body.config = { country: f.country.trim() };
        const bypass = f.bypass.split(/[\s,]+/).filter(Boolean);
        if (bypass.length) body.bypass_hosts = bypass;
        const p = await api.call('POST /proxies', { body });
        notify(`Proxy ${p.name ?? p.id} created`);
        changed('proxies');
      }}
    >
      <Field label="Type">
        <select value={f.type} onChange={set('type')}>
          {TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </Field>
      <Field label="Name">
        <input value={f.name} onChange={set('name')} />
      </Field>
      <Field label="Protocol">
        <select value={f.protocol} onChange={set('protocol')}>
          <option>http</option>
          <option>https</option>
        </select>
      </Field>
      {f.type === 'custom' ? (
        <>
          <Field label="Host">
            <input value={f.host} onChange={set('host')} />
          </Field>
          <Field label="Port">
            <input type="number" value={f.port} onChange={set('port')} />
          </Field>
          <Field label="Username">
            <input value={f.username} onChange={set('username')} autoComplete="off" />
          </Field>
          <Field label="Password">
            <input type="password" value={f.password} onChange={set('password')} autoComplete="new-password" />
          </Field>
        </>
      ) : (
        <Field label="Country" hint="ISO code, e.g. US">
          <input value={f.country} onChange={set('country')} />
        </Field>
      )}
      <Field label="Bypass hosts" hint="Space or comma separated" wide>
        <input value={f.bypass} onChange={set('bypass')} />
      </Field>
    </FormDialog>
  );
}

type ProxyBody = BodyOf<'POST /proxies'>;

export function ProxiesPage(): React.JSX.Element {
  const list = useProxies();
  const { items, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<ProxyRecord | null>(null);
  const [newName, setNewName] = useState('');
  const [deleting, setDeleting] = useState<ProxyRecord | null>(null);
  const [checking, setChecking] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const check = async (p: ProxyRecord): Promise<void> => {
    setChecking(p.id ?? null);
    try {
      const r = await api.call('POST /proxies/:id/check', { params: { id: p.id! }, body: {} });
      notify(`${r.name ?? r.id}: ${r.status ?? 'checked'}`);
      changed('proxies');
    } catch (err) {
      reportError(err);
    } finally {
      setChecking(null);
    }
  };

  return (
    <section className="page">
      <PageHeader
        title="Proxies"
        subtitle="Outbound proxies sessions and auth connections can use."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            New proxy
          </Button>
        }
      />
      <ListChrome
        noun="proxies"
        placeholder="Search name, host, IP or id"
        list={list}
        empty={
          <EmptyState title="No proxies" action={<Button onClick={() => setCreating(true)}>New proxy</Button>}>
            Create one, then pick it when creating a session (proxy id).
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Endpoint</th>
              <th>Status</th>
              <th>Last checked</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((p) => {
              const cfg = (p.config ?? {}) as Record<string, unknown>;
              return [
                <tr key={p.id}>
                  <td>
                    <button type="button" className="link" onClick={() => setOpen(open === p.id ? null : (p.id ?? null))} aria-expanded={open === p.id}>
                      {p.name || p.id}
                    </button>
                    <div className="mono muted small">{p.id}</div>
                  </td>
                  <td>
                    <Badge>{p.type}</Badge> <span className="muted small">{p.protocol}</span>
                  </td>
                  <td className="mono small">{cfg.host ? `${String(cfg.host)}:${String(cfg.port)}` : (cfg.country as string) || '—'}</td>
                  <td>
                    {p.status === 'available' ? (
                      <Badge tone="ok">available</Badge>
                    ) : p.status === 'unavailable' ? (
                      <Badge tone="bad">unavailable</Badge>
                    ) : (
                      <Badge>unchecked</Badge>
                    )}
                  </td>
                  <td className="small nowrap">{formatTime(p.last_checked)}</td>
                  <td className="row-actions">
                    <Button busy={checking === p.id} onClick={() => void check(p)}>
                      Check
                    </Button>
                    <Button
                      onClick={() => {
                        setRenaming(p);
                        setNewName(p.name ?? '');
                      }}
                    >
                      Rename
                    </Button>
                    <Button variant="danger" onClick={() => setDeleting(p)}>
                      Delete
                    </Button>
                  </td>
                </tr>,
                open === p.id ? (
                  <tr key={`${p.id}-details`}>
                    <td colSpan={6}>
                      <pre className="event-json">{JSON.stringify(p, null, 2)}</pre>
                    </td>
                  </tr>
                ) : null,
              ];
            })}
          </tbody>
        </table>
      ) : null}
      <CreateProxy open={creating} onClose={() => setCreating(false)} />
      <FormDialog
        open={!!renaming}
        title="Rename proxy"
        confirmLabel="Save"
        onClose={() => setRenaming(null)}
        onSubmit={async () => {
          await api.call('PATCH /proxies/:id', { params: { id: renaming!.id! }, body: { name: newName } });
          changed('proxies');
        }}
      >
        <Field label="Name" wide>
          <input value={newName} onChange={(e) => setNewName(e.target.value)} autoFocus />
        </Field>
      </FormDialog>
      <ConfirmDialog
        open={!!deleting}
        title={`Delete proxy ${deleting?.name ?? deleting?.id ?? ''}?`}
        message="Sessions already using it keep running; new ones can no longer pick it."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /proxies/:id', { params: { id: deleting!.id! } });
          notify('Proxy deleted');
          changed('proxies');
        }}
      />
    </section>
  );
}
