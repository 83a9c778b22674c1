/**
 * Session-scoped calls the Transport cannot carry: binary bodies (multipart uploads) and
 * binary answers (file bytes, screenshots, MP4) go straight to the session's own URLs with its
 * JWT (`{base_url}/…?jwt=`), which every `/browsers/{id}/…` route accepts, so the API key
 * never reaches the renderer. JSON control-plane calls keep using `transport()`; `sessionPath`
 * builds their paths. Failures throw an `ApiError` carrying the server's Error message.
 */
import type { Session } from '../../../../shared/wire/sessions';
import type { IpcError } from '../../../../shared/ipc/contract';
import { ApiError } from '../../transport/transport';
import { sessionUrl } from '../session-urls';

/** `/browsers/{id}/{sub}` for `transport().request(...)`. */
export function sessionPath(s: Session, sub: string): string {
  return `/browsers/${encodeURIComponent(s.session_id)}/${sub.replace(/^\/+/, '')}`;
}

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let e: IpcError = { name: 'ApiError', status: res.status, message: text.trim() || `${res.status} ${res.statusText || 'error'}` };
  try {
    const body = JSON.parse(text) as { code?: string; message?: string; details?: IpcError['details'] };
    if (typeof body.message === 'string') e = { name: 'ApiError', status: res.status, code: body.code, message: body.message, details: body.details };
  } catch {}
  return new ApiError(e);
}

export interface SessionFetchInit {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Record<string, string>;
  /** JSON-encoded unless it is FormData / Blob (sent as is). */
  body?: unknown;
  signal?: AbortSignal;
}

/** A request to the session's own URL with its JWT; resolves with the (ok) Response. */
export async function sessionFetch(s: Session, sub: string, init: SessionFetchInit = {}): Promise<Response> {
  const url = sessionUrl(s, sub, init.query);
  if (!url) throw new ApiError({ name: 'ApiError', message: 'this session carries no base_url/JWT, so it cannot be reached directly' });
  const raw = init.body instanceof FormData || init.body instanceof Blob;
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'GET',
      // The JWT in the URL is the credential; the console cookie must not be what authorizes it.
      credentials: 'omit',
      headers: init.body !== undefined && !raw ? { 'content-type': 'application/json' } : undefined,
      body: init.body === undefined ? undefined : raw ? (init.body as BodyInit) : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    throw new ApiError({ name: 'ConnectionError', message: `cannot reach the session: ${err instanceof Error ? err.message : String(err)}` });
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

export async function sessionBlob(s: Session, sub: string, init: SessionFetchInit = {}): Promise<Blob> {
  return (await sessionFetch(s, sub, init)).blob();
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

/** The attach/WebSocket form of a session URL (`ws://…/browsers/{id}/{sub}?jwt=`). */
export function sessionWsUrl(s: Session, sub: string): string | undefined {
  return sessionUrl(s, sub)?.replace(/^http/, 'ws');
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
