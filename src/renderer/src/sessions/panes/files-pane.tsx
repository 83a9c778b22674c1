/**
 * Files tab: browse the session filesystem (`fs/list_files`) with breadcrumbs, preview text and
 * images, upload (multipart `fs/upload` to the current folder; drag and drop works too),
 * download files (`fs/read_file`) and folders (`fs/download_dir_zip`), create folders, move or
 * rename, delete. Every failure shows the server's message.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Button, EmptyState, ErrorBanner, Spinner, formatTime } from '../../components/ui';
import { ConfirmDialog } from '../../components/dialog';
import { notify, reportError } from '../../stores/toasts';
import { formatBytes } from './session-api';
import { FilePreview, type FileEntry } from './file-preview';
import { PathDialog } from './path-dialog';
import { usePaneKey } from './pane-keys';
import { FolderIcon } from '../../components/icons';

function join(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

function crumbs(path: string): Array<{ name: string; path: string }> {
  const parts = path.split('/').filter(Boolean);
  return [{ name: '/', path: '/' }, ...parts.map((p, i) => ({ name: p, path: '/' + parts.slice(0, i + 1).join('/') }))];
}

export function FilesPane({ session }: PaneProps): React.JSX.Element {
  const [dir, setDir] = useState('/');
  const [items, setItems] = useState<FileEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<FileEntry | null>(null);
  const [uploading, setUploading] = useState<string | null>(null);
  const [dialog, setDialog] = useState<{ kind: 'mkdir' } | { kind: 'move'; file: FileEntry } | { kind: 'delete'; file: FileEntry } | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const list = await api.call('GET /browsers/:id/fs/list_files', { params: { id: session.session_id }, query: { path: dir } });
      list.sort((a, b) => Number(b.is_dir) - Number(a.is_dir) || a.name.localeCompare(b.name));
      setItems(list);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
      setItems(null);
    } finally {
      setLoading(false);
    }
  }, [session, dir]);
  useEffect(() => {
    void load();
  }, [load]);

  const upload = async (files: FileList | File[]): Promise<void> => {
    const list = Array.from(files);
    if (!list.length) return;
    const multipart = list.flatMap((f, i) => [
      { name: `files[${i}][dest_path]`, value: join(dir, f.name) },
      { name: `files[${i}][file]`, filename: f.name, blob: f },
    ]);
    setUploading(list.length === 1 ? list[0].name : `${list.length} files`);
    try {
      await api.binary('POST /browsers/:id/fs/upload', { params: { id: session.session_id }, multipart });
      notify(`Uploaded ${list.length === 1 ? list[0].name : `${list.length} files`} to ${dir}`);
      await load();
    } catch (err) {
      reportError(err);
    } finally {
      setUploading(null);
      if (input.current) input.current.value = '';
    }
  };

  const download = async (f: FileEntry): Promise<void> => {
    try {
      const r = f.is_dir
        ? await api.download('GET /browsers/:id/fs/download_dir_zip', {
            opts: { params: { id: session.session_id }, query: { path: f.path } },
            filename: `${f.name || 'root'}.zip`,
          })
        : await api.download('GET /browsers/:id/fs/read_file', { opts: { params: { id: session.session_id }, query: { path: f.path } }, filename: f.name });
      if (r.saved) notify(`Downloaded ${f.name} (${formatBytes(r.bytes)})`);
    } catch (err) {
      reportError(err);
    }
  };

  usePaneKey('u', () => input.current?.click());

  return (
    <div
      className="files-pane"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        void upload(e.dataTransfer.files);
      }}
    >
      <div className="toolbar">
        <nav className="breadcrumb path-crumbs" aria-label="Folder">
          {crumbs(dir).map((c, i, all) =>
            i === all.length - 1 ? (
              <strong key={c.path} className="mono">
                {c.name}
              </strong>
            ) : (
              <span key={c.path}>
                <button type="button" className="link mono" onClick={() => setDir(c.path)}>
                  {c.name}
                </button>
                {i > 0 ? <span className="muted"> / </span> : null}
              </span>
            ),
          )}
        </nav>
        <span className="spacer" />
        {loading ? <Spinner label="Loading folder" /> : null}
        <Button onClick={() => void load()}>Refresh</Button>
        <Button onClick={() => setDialog({ kind: 'mkdir' })}>New folder</Button>
        <Button
          onClick={() =>
            void download({ name: dir.split('/').filter(Boolean).pop() ?? 'root', path: dir, is_dir: true, mode: '', mod_time: '', size_bytes: 0 })
          }
        >
          Download folder (.zip)
        </Button>
        <Button variant="primary" busy={!!uploading} onClick={() => input.current?.click()}>
          {uploading ? `Uploading ${uploading}…` : 'Upload'} <kbd>u</kbd>
        </Button>
        <input ref={input} type="file" multiple hidden aria-label="Files to upload" onChange={(e) => e.target.files && void upload(e.target.files)} />
      </div>
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      <div className={selected ? 'files-split' : undefined}>
        <div className="files-list">
          {items && !items.length ? (
            <EmptyState title="This folder is empty">Upload files here (or drop them on this pane), or create a folder.</EmptyState>
          ) : null}
          {items?.length ? (
            <table className="table files">
              <thead>
                <tr>
                  <th>Name</th>
                  <th className="num">Size</th>
                  <th className="col-meta">Mode</th>
                  <th className="col-meta">Modified</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {items.map((f) => (
                  <tr key={f.path} className={selected?.path === f.path ? 'row-selected' : undefined}>
                    <td>
                      <button type="button" className="link mono" onClick={() => (f.is_dir ? (setDir(f.path), setSelected(null)) : setSelected(f))}>
                        {f.is_dir ? <FolderIcon className="icon icon-before" /> : null}
                        {f.name}
                      </button>
                    </td>
                    <td className="num nowrap">{f.is_dir ? '—' : formatBytes(f.size_bytes)}</td>
                    <td className="col-meta mono small nowrap">{f.mode}</td>
                    <td className="col-meta nowrap small">{formatTime(f.mod_time)}</td>
                    <td className="row-actions">
                      <Button aria-label={`Download ${f.name}`} onClick={() => void download(f)}>
                        Download
                      </Button>
                      <Button aria-label={`Move ${f.name}`} onClick={() => setDialog({ kind: 'move', file: f })}>
                        Move
                      </Button>
                      <Button aria-label={`Delete ${f.name}`} variant="danger" onClick={() => setDialog({ kind: 'delete', file: f })}>
                        Delete
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
        {selected ? <FilePreview session={session} file={selected} onDownload={() => void download(selected)} onClose={() => setSelected(null)} /> : null}
      </div>
      <PathDialog
        open={dialog?.kind === 'mkdir'}
        title="New folder"
        label="Folder path"
        initial={join(dir, 'new-folder')}
        confirmLabel="Create folder"
        onClose={() => setDialog(null)}
        onSubmit={async (path) => {
          await api.call('PUT /browsers/:id/fs/create_directory', { params: { id: session.session_id }, body: { path } });
          notify(`Created ${path}`);
          await load();
        }}
      />
      <PathDialog
        open={dialog?.kind === 'move'}
        title={dialog?.kind === 'move' ? `Move or rename ${dialog.file.name}` : 'Move'}
        label="New path"
        initial={dialog?.kind === 'move' ? dialog.file.path : ''}
        confirmLabel="Move"
        onClose={() => setDialog(null)}
        onSubmit={async (dest) => {
          if (dialog?.kind !== 'move') return;
          await api.call('PUT /browsers/:id/fs/move', { params: { id: session.session_id }, body: { src_path: dialog.file.path, dest_path: dest } });
          if (selected?.path === dialog.file.path) setSelected(null);
          notify(`Moved to ${dest}`);
          await load();
        }}
      />
      <ConfirmDialog
        open={dialog?.kind === 'delete'}
        title={dialog?.kind === 'delete' ? `Delete ${dialog.file.name}?` : 'Delete?'}
        message={dialog?.kind === 'delete' && dialog.file.is_dir ? 'The folder and everything in it is deleted.' : 'The file is deleted from the session.'}
        confirmLabel="Delete"
        danger
        onClose={() => setDialog(null)}
        onConfirm={async () => {
          if (dialog?.kind !== 'delete') return;
          const f = dialog.file;
          await api.call(f.is_dir ? 'PUT /browsers/:id/fs/delete_directory' : 'PUT /browsers/:id/fs/delete_file', {
            params: { id: session.session_id },
            body: { path: f.path },
          });
          if (selected?.path === f.path) setSelected(null);
          notify(`Deleted ${f.path}`);
          await load();
        }}
      />
    </div>
  );
}
