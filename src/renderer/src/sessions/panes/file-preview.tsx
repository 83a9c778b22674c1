/**
 * Preview of one session file: images through a blob URL, text (first 512 KB, decoded as
 * UTF-8) in a <pre>, anything else as "no preview" with a download button. Bytes come from
 * `fs/read_file` through the transport, and only as many as the preview shows.
 */
import { useEffect, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { Button, ErrorBanner, Spinner } from '../../components/ui';
import { errorMessage } from '../../transport/transport';
import { api } from '../../transport/api-client';
import { formatBytes, toBlob } from './session-api';
import type { FileInfo } from '../../../../shared/wire/session-fs';

export type FileEntry = FileInfo;

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|ico|svg)$/i;
const TEXT_LIMIT = 512 * 1024;
/** Larger images are offered for download instead of being decoded here. */
const IMAGE_LIMIT = 16 * 1024 * 1024;

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

type Preview = { kind: 'image'; url: string } | { kind: 'text'; text: string; truncated: boolean } | { kind: 'binary' } | { kind: 'too-large' };

export function FilePreview({
  session,
  file,
  onDownload,
  onClose,
}: {
  session: Session;
  file: FileEntry;
  onDownload(): void;
  onClose(): void;
}): React.JSX.Element {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let url: string | undefined;
    let gone = false;
    setPreview(null);
    setError(null);
    const image = IMAGE.test(file.name);
    api
      .binary('GET /browsers/:id/fs/read_file', { params: { id: session.session_id }, query: { path: file.path }, maxBytes: image ? IMAGE_LIMIT : TEXT_LIMIT })
      .then(
        (r) => {
          if (gone) return;
          if (image) {
            if (r.truncated) return setPreview({ kind: 'too-large' });
            url = URL.createObjectURL(toBlob(r, file.name.toLowerCase().endsWith('.svg') ? 'image/svg+xml' : undefined));
            setPreview({ kind: 'image', url });
            return;
          }
          if (looksBinary(r.data)) setPreview({ kind: 'binary' });
          else setPreview({ kind: 'text', text: new TextDecoder().decode(r.data), truncated: r.truncated });
        },
        (err) => !gone && setError(errorMessage(err)),
      );
    return () => {
      gone = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [session, file.path, file.name]);

  return (
    <aside className="card file-preview" aria-label={`Preview of ${file.name}`}>
      <div className="toolbar">
        <strong className="mono">{file.path}</strong>
        <span className="muted small">{formatBytes(file.size_bytes)}</span>
        <span className="spacer" />
        <Button onClick={onDownload}>Download</Button>
        <Button variant="ghost" onClick={onClose}>
          Close
        </Button>
      </div>
      {error ? <ErrorBanner message={error} /> : null}
      {!preview && !error ? <Spinner label="Loading preview" /> : null}
      {preview?.kind === 'image' ? <img className="preview-image" src={preview.url} alt={file.name} /> : null}
      {preview?.kind === 'text' ? (
        <>
          <pre className="preview-text">{preview.text || '(empty file)'}</pre>
          {preview.truncated ? <p className="muted small">Showing the first {formatBytes(TEXT_LIMIT)}; download the file for the rest.</p> : null}
        </>
      ) : null}
      {preview?.kind === 'too-large' ? (
        <p className="muted">This image is larger than {formatBytes(IMAGE_LIMIT)}: no preview. Download it to open it.</p>
      ) : null}
      {preview?.kind === 'binary' ? <p className="muted">This file is binary: no preview. Download it to open it.</p> : null}
    </aside>
  );
}
