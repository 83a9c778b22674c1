/**
 * Helpers of the session panes. Every call, JSON or binary (multipart uploads, file bytes,
 * screenshots), goes through the typed client (`transport/api-client.ts`) and the Transport,
 * authenticated like any other call (the console
 * cookie on the web, main's key in the desktop app), so it works from the desktop app's
 * `file://` page where a cross-origin fetch to the engine would be refused. Only what the
 * browser itself must load — live view frames, the terminal WebSocket, the replay <video> —
 * uses the session's JWT URL (`session-urls.ts`).
 */
import type { BinaryResponse } from '../../../../shared/ipc/contract';

/** The answer's bytes as a Blob (for object URLs), typed by its content type unless `type` is given. */
export function toBlob(r: BinaryResponse, type?: string): Blob {
  return new Blob([r.data as Uint8Array<ArrayBuffer>], { type: type ?? r.headers['content-type'] ?? 'application/octet-stream' });
}

/** Saves a blob under `filename` through a temporary object URL. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function formatBytes(n: number | undefined): string {
  if (n === undefined || n === null) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function base64ToText(b64: string | undefined): string {
  if (!b64) return '';
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
