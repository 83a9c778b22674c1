/**
 * Telemetry destinations: the organization's OTLP/HTTP collectors that sessions export their
 * telemetry to (`telemetry.export`). List (search) with delivery health, add (name, endpoint,
 * description, headers), edit, delete. Header values are write-only: the server answers only
 * their names, so an edit can replace or remove a header but never show its value. Rename and
 * delete are refused (409) while a session or pool exports to the destination.
 */
import { useEffect, useState } from 'react';
import type { OtlpDestination } from '../../../shared/wire/telemetry-destinations';
import { api, type BodyOf } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { Badge, Button, EmptyState, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { FormDialog } from '../components/form-dialog';

export const useTelemetryDestinations = createListStore<OtlpDestination, { query: string }>({
  topic: 'telemetry-destinations',
  filters: { query: '' },
  fetch: (f) => api.call('GET /telemetry/destinations', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

interface HeaderRow {
  name: string;
  value: string;
  /** A stored header (its value unknown here): empty value keeps it. */
  stored?: boolean;
  remove?: boolean;
}

/** The PATCH/POST `headers` map: new or replaced values, and `null` for removed stored ones. */
function headersBody(rows: HeaderRow[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    if (r.stored && r.remove) out[name] = null;
    else if (r.value !== '') out[name] = r.value;
  }
  return out;
}

function DestinationDialog({ open, editing, onClose }: { open: boolean; editing?: OtlpDestination; onClose(): void }): React.JSX.Element | null {
  const [name, setName] = useState(editing?.name ?? '');
  const [endpoint, setEndpoint] = useState(editing?.endpoint ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [rows, setRows] = useState<HeaderRow[]>(
    editing ? Object.keys(editing.headers).map((n) => ({ name: n, value: '', stored: true })) : [{ name: 'Authorization', value: '' }],
  );
  const setRow = (i: number, r: Partial<HeaderRow>) => setRows(rows.map((x, j) => (j === i ? { ...x, ...r } : x)));
  return (
    <FormDialog
      open={open}
      wide
      title={editing ? `Edit ${editing.name}` : 'Add telemetry destination'}
      confirmLabel={editing ? 'Save' : 'Add destination'}
      onClose={onClose}
      onSubmit={async () => {
        const headers = headersBody(rows);
        if (editing) {
          const body: BodyOf<'PATCH /telemetry/destinations/:id'> = { headers };
          if (name.trim() !== editing.name) body.name = name.trim();
          if (endpoint.trim() !== editing.endpoint) body.endpoint = endpoint.trim();
          if (description !== (editing.description ?? '')) body.description = description;
          await api.call('PATCH /telemetry/destinations/:id', { params: { id: editing.id }, body });
          notify(`Saved ${name.trim()}`);
        } else {
          // A new destination has no stored headers to remove, so no value is null.
          const values = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
          const body: BodyOf<'POST /telemetry/destinations'> = { name: name.trim(), endpoint: endpoint.trim(), headers: values };
          if (description) body.description = description;
          const d = await api.call('POST /telemetry/destinations', { body });
          notify(`Destination ${d.name} added — bind it with telemetry.export on a session`);
        }
        changed('telemetry-destinations');
      }}
    >
      <Field label="Name" hint="Letters, digits, . _ - (unique in the organization)" wide>
        <input value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field label="Endpoint" hint="OTLP/HTTP base URL; /v1/logs is appended" wide>
        <input value={endpoint} onChange={(e) => setEndpoint(e.target.value)} placeholder="https://collector.example:4318" />
      </Field>
      <Field label="Description" wide>
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <Field label="Headers" hint="Values are stored encrypted and never shown again; leave a stored header's value empty to keep it" wide>
        <div className="header-rows">
          {rows.map((r, i) => (
            <div className="row-actions" key={i}>
              <input
                aria-label={`Header ${i + 1} name`}
                value={r.name}
                disabled={r.stored}
                onChange={(e) => setRow(i, { name: e.target.value })}
                placeholder="Name"
              />
              <input
                aria-label={`Header ${i + 1} value`}
                type="password"
                autoComplete="off"
                value={r.value}
                disabled={r.remove}
                onChange={(e) => setRow(i, { value: e.target.value })}
                placeholder={r.stored ? '(stored — type to replace)' : 'Value'}
              />
              {r.stored ? (
                <label className="small">
                  <input type="checkbox" checked={!!r.remove} onChange={(e) => setRow(i, { remove: e.target.checked })} /> remove
                </label>
              ) : (
                <Button aria-label={`Drop header ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                  ✕
                </Button>
              )}
            </div>
          ))}
          <Button onClick={() => setRows([...rows, { name: '', value: '' }])}>Add header</Button>
        </div>
      </Field>
    </FormDialog>
  );
}

function Health({ d }: { d: OtlpDestination }): React.JSX.Element {
  if (d.consecutive_failures > 0)
    return (
      <>
        <Badge tone="bad">failing ×{d.consecutive_failures}</Badge>
        <div className="small muted" title={d.last_error}>
          {d.last_error} {d.last_error_at ? `(${formatTime(d.last_error_at)})` : ''}
        </div>
      </>
    );
  if (d.last_success_at)
    return (
      <>
        <Badge tone="ok">delivering</Badge>
        <div className="small muted">last {formatTime(d.last_success_at)}</div>
      </>
    );
  return <Badge>no deliveries yet</Badge>;
}

export function TelemetryDestinationsPage(): React.JSX.Element {
  const list = useTelemetryDestinations();
  const { items, refresh } = list;
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<OtlpDestination | undefined>();
  const [deleting, setDeleting] = useState<OtlpDestination | null>(null);
  return (
    <section className="page">
      <PageHeader
        title="Telemetry destinations"
        subtitle="OTLP/HTTP collectors sessions export their telemetry to (organization-wide; changes need an org-wide key)."
        actions={
          <Button variant="primary" onClick={() => setAdding(true)}>
            Add destination
          </Button>
        }
      />
      <ListChrome
        noun="telemetry destinations"
        placeholder="Search name, endpoint or id"
        list={list}
        empty={
          <EmptyState title="No telemetry destinations" action={<Button onClick={() => setAdding(true)}>Add destination</Button>}>
            Add a collector, then create sessions with{' '}
            <code>
              telemetry: {'{'}export: {'{'}otlp: {'{'}destination: {'{'}name{'}'}
              {'}'}
              {'}'}
              {'}'}
            </code>
            .
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Endpoint</th>
              <th>Headers</th>
              <th>Health</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  {d.name}
                  <div className="mono muted small">{d.id}</div>
                  {d.description ? <div className="small muted">{d.description}</div> : null}
                </td>
                <td className="mono small">{d.endpoint}</td>
                <td className="small">{Object.keys(d.headers).join(', ') || '—'}</td>
                <td>
                  <Health d={d} />
                </td>
                <td className="small nowrap">{formatTime(d.updated_at)}</td>
                <td className="row-actions">
                  <Button aria-label={`Edit ${d.name}`} onClick={() => setEditing(d)}>
                    Edit
                  </Button>
                  <Button aria-label={`Delete ${d.name}`} variant="danger" onClick={() => setDeleting(d)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <DestinationDialog key={adding ? 'add-open' : 'add'} open={adding} onClose={() => setAdding(false)} />
      <DestinationDialog key={editing?.id ?? 'none'} open={!!editing} editing={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete telemetry destination ${deleting?.name ?? ''}?`}
        message="Refused while a running session or a pool exports to it."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /telemetry/destinations/:id', { params: { id: deleting!.id } });
          notify('Telemetry destination deleted');
          changed('telemetry-destinations');
        }}
      />
    </section>
  );
}
