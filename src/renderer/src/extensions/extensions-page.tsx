/**
 * Extensions: the project's uploaded browser extensions (zips of an unpacked extension with a
 * manifest.json) — list with search, upload (optional name), download the zip as uploaded, and
 * delete. Sessions and pools load them by id or name (`extensions: [{name}]` on create).
 */
import { useState, useEffect } from 'react';
import type { Extension } from '../../../shared/wire/extensions';
import { api } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { notify, reportError } from '../stores/toasts';
import { Button, EmptyState, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { ListChrome } from '../components/list-chrome';
import { FormDialog } from '../components/form-dialog';
import { formatBytes } from '../sessions/panes/session-api';

export const useExtensions = createListStore<Extension, { query: string }>({
  topic: 'extensions',
  filters: { query: '' },
  fetch: (f) => api.call('GET /extensions', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

function UploadExtension({ open, onClose }: { open: boolean; onClose(): void }): React.JSX.Element | null {
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  return (
    <FormDialog
      open={open}
      title="Upload extension"
      confirmLabel="Upload"
      onClose={() => {
        setName('');
        setFile(null);
        onClose();
      }}
      onSubmit={async () => {
        if (!file) throw new Error('choose the extension’s .zip file first');
        const multipart = [{ name: 'file', filename: file.name, blob: file }, ...(name.trim() ? [{ name: 'name', value: name.trim() }] : [])];
        const r = await api.binary('POST /extensions', { multipart });
        const ext = JSON.parse(new TextDecoder().decode(r.data)) as Extension;
        notify(`Extension ${ext.name ?? ext.id} uploaded`);
        setName('');
        setFile(null);
        changed('extensions');
      }}
    >
      <Field label="Zip file" hint="An unpacked extension, zipped: manifest.json at the top" wide>
        <input type="file" accept=".zip,application/zip" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </Field>
      <Field label="Name" hint="Optional; letters, digits, . _ -" wide>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
    </FormDialog>
  );
}

export function ExtensionsPage(): React.JSX.Element {
  const list = useExtensions();
  const { items, refresh } = list;
  // Also the first load; `last used` changes as sessions start with them.
  useEffect(() => void refresh(), [refresh]); // then the change feed keeps it current
  const [uploading, setUploading] = useState(false);
  const [deleting, setDeleting] = useState<Extension | null>(null);

  const download = async (x: Extension): Promise<void> => {
    try {
      const r = await api.download('GET /extensions/:id_or_name', { opts: { params: { id_or_name: x.id } }, filename: `${x.name ?? x.id}.zip` });
      if (r.saved) notify(`Downloaded ${x.name ?? x.id} (${formatBytes(r.bytes)})`);
    } catch (err) {
      reportError(err);
    }
  };

  return (
    <section className="page">
      <PageHeader
        title="Extensions"
        subtitle="Browser extensions sessions and pools of this project can load."
        actions={
          <Button variant="primary" onClick={() => setUploading(true)}>
            Upload extension
          </Button>
        }
      />
      <ListChrome
        noun="extensions"
        placeholder="Search name or id"
        list={list}
        empty={
          <EmptyState title="No extensions" action={<Button onClick={() => setUploading(true)}>Upload extension</Button>}>
            Upload a zipped unpacked extension, then load it into sessions with{' '}
            <code>
              extensions: [{'{'}name{'}'}]
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
              <th className="num">Size</th>
              <th>SHA-256</th>
              <th>Uploaded</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((x) => (
              <tr key={x.id}>
                <td>
                  {x.name ?? <span className="muted">(no name)</span>}
                  <div className="mono muted small">{x.id}</div>
                </td>
                <td className="num nowrap">{formatBytes(x.size_bytes)}</td>
                <td className="mono small" title={x.checksum ?? undefined}>
                  {x.checksum ? `${x.checksum.slice(0, 12)}…` : '—'}
                </td>
                <td className="small nowrap">{formatTime(x.created_at)}</td>
                <td className="small nowrap">{x.last_used_at ? formatTime(x.last_used_at) : 'never'}</td>
                <td className="row-actions">
                  <Button aria-label={`Download ${x.name ?? x.id}`} onClick={() => void download(x)}>
                    Download
                  </Button>
                  <Button aria-label={`Delete ${x.name ?? x.id}`} variant="danger" onClick={() => setDeleting(x)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <UploadExtension open={uploading} onClose={() => setUploading(false)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete extension ${deleting?.name ?? deleting?.id ?? ''}?`}
        message="Running sessions keep their copy; new sessions and pool browsers can no longer load it."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /extensions/:id_or_name', { params: { id_or_name: deleting!.id } });
          notify('Extension deleted');
          changed('extensions');
        }}
      />
    </section>
  );
}
