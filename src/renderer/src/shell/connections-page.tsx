/**
 * Desktop: connections to Browserdeck servers. The local engine is always there; remote
 * servers are added with their URL and an API key (checked against the server first, then
 * encrypted by main — this screen never sees it again, only its masked form).
 */
import { useState } from 'react';
import { useConnections } from '../stores/connections';
import { Badge, Button, EmptyState, Field, PageHeader } from '../components/ui';
import { HealthDot } from './connection-switcher';
import { reportError, notify } from '../stores/toasts';
import { errorMessage } from '../transport/transport';

export function ConnectionsPage(): React.JSX.Element {
  const { list, vault, add, activate, remove, check } = useConnections();
  const [form, setForm] = useState({ name: '', url: '', apiKey: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remotes = list.filter((c) => c.kind === 'remote');
  return (
    <section className="page">
      <PageHeader title="Connections" subtitle="The engine on this computer and any remote Browserdeck servers." />
      {vault?.weak ? (
        <p className="banner banner-warn">No system keyring is available ({vault.backend}): stored API keys are only obfuscated on disk.</p>
      ) : null}
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Address</th>
            <th>Key</th>
            <th>Health</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((c) => (
            <tr key={c.id}>
              <td>
                {c.name} {c.active ? <Badge tone="info">active</Badge> : null}
              </td>
              <td className="mono">{c.url || '—'}</td>
              <td className="mono">{c.maskedKey ?? 'launch key'}</td>
              <td>
                <HealthDot health={c.health} /> {c.healthMessage ?? c.health}
              </td>
              <td className="row-actions">
                {!c.active ? <Button onClick={() => void activate(c.id).catch(reportError)}>Use</Button> : null}
                <Button onClick={() => void check(c.id).catch(reportError)}>Check</Button>
                {c.kind === 'remote' ? (
                  <Button variant="danger" onClick={() => void remove(c.id).then(() => notify(`Removed ${c.name}`), reportError)}>
                    Remove
                  </Button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {remotes.length === 0 ? <EmptyState title="No remote servers yet">Add one below with its URL and an API key to manage it from here.</EmptyState> : null}
      <form
        className="card form-grid add-server"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const c = await add(form);
            setForm({ name: '', url: '', apiKey: '' });
            notify(`Added ${c.name}`);
          } catch (err) {
            setError(errorMessage(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h2 className="form-title">Add a server</h2>
        <Field label="Name">
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        </Field>
        <Field label="Server URL">
          <input value={form.url} placeholder="https://browserdeck.example.com" onChange={(e) => setForm({ ...form, url: e.target.value })} required />
        </Field>
        <Field label="API key">
          <input type="password" autoComplete="off" value={form.apiKey} onChange={(e) => setForm({ ...form, apiKey: e.target.value })} required />
        </Field>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            Add server
          </Button>
        </div>
      </form>
    </section>
  );
}
