/**
 * Web console transport: same-origin fetch with the console session cookie (HttpOnly, set by
 * `POST /console/session`) plus the `X-Browserdeck-Console: 1` header the engine requires with
 * it. The API key itself is never held here. A 401 means the console session ended: the
 * `onUnauthorized` callback sends the UI back to sign-in.
 */
import { readJsonFrames, SseFrameError } from '../../../shared/sse-frames';
import { CursorDownloadError, downloadByCursor } from '../../../shared/cursor-download';
import type { BinaryResponse, DownloadRequest, DownloadResult, HttpMethod, IpcError } from '../../../shared/ipc/contract';
import { encodeQuery } from '../../../shared/ipc/query';
import { ApiError, frameQueue, type BinaryCall, type RequestOptions, type Response, type StreamOptions, type Transport } from './transport';

export const CONSOLE_HEADER = 'X-Browserdeck-Console';

async function errorOf(res: globalThis.Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let e: IpcError = { name: 'ApiError', status: res.status, message: text.trim() || `${res.status} ${res.statusText || 'error'}` };
  try {
    const body = JSON.parse(text) as { code?: string; message?: string; details?: IpcError['details'] };
    if (typeof body.message === 'string') e = { name: 'ApiError', status: res.status, code: body.code, message: body.message, details: body.details };
  } catch {}
  return new ApiError(e);
}

export class WebTransport implements Transport {
  readonly kind = 'web' as const;

  constructor(private readonly opts: { base?: string; projectId?: () => string | undefined; onUnauthorized?: () => void } = {}) {}

  private headers(projectId?: string, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { [CONSOLE_HEADER]: '1', accept: 'application/json', ...extra };
    const p = projectId ?? this.opts.projectId?.();
    if (p) h['X-Kernel-Project-Id'] = p;
    return h;
  }

  private async fetch(
    method: string,
    path: string,
    opts: RequestOptions & { accept?: string; signal?: AbortSignal; form?: FormData } = {},
  ): Promise<globalThis.Response> {
    const extra: Record<string, string> = {};
    if (opts.accept) extra.accept = opts.accept;
    if (opts.body !== undefined) extra['content-type'] = 'application/json';
    // A FormData body sets its own multipart content type (with the boundary).
    let res: globalThis.Response;
    try {
      res = await fetch((this.opts.base ?? '') + path + encodeQuery(opts.query), {
        method,
        credentials: 'same-origin',
        headers: this.headers(opts.projectId, extra),
        body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
        signal: opts.signal,
      });
    } catch (err) {
      throw new ApiError({ name: 'ConnectionError', message: `cannot reach the server: ${err instanceof Error ? err.message : String(err)}` });
    }
    if (!res.ok) {
      const e = await errorOf(res);
      if (res.status === 401) this.opts.onUnauthorized?.();
      throw e;
    }
    return res;
  }

  async send<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<Response<T>> {
    const res = await this.fetch(method, path, opts);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    const text = res.status === 204 ? '' : await res.text();
    const body = (text && /json/.test(headers['content-type'] ?? '') ? JSON.parse(text) : text || null) as T;
    return { status: res.status, headers, body };
  }

  async request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T> {
    return (await this.send<T>(method, path, opts)).body;
  }

  stream(path: string, opts: StreamOptions = {}): AsyncIterable<unknown> {
    const abort = new AbortController();
    const q = frameQueue(() => abort.abort());
    void (async () => {
      try {
        const res = await this.fetch('GET', path, { ...opts, accept: 'text/event-stream', signal: abort.signal });
        await readJsonFrames(res.body!, (frame) => q.push(frame));
        q.end();
      } catch (err) {
        if (err instanceof SseFrameError) {
          q.end(new ApiError({ name: err.name, message: err.message }));
          abort.abort();
        } else q.end(abort.signal.aborted ? undefined : err instanceof Error ? err : new Error(String(err)));
      }
    })();
    return q.iterable;
  }

  async binary(call: BinaryCall): Promise<BinaryResponse> {
    let form: FormData | undefined;
    if (call.multipart) {
      form = new FormData();
      for (const p of call.multipart) {
        if ('blob' in p) form.append(p.name, p.blob, p.filename);
        else form.append(p.name, p.value);
      }
    }
    const abort = new AbortController();
    const res = await this.fetch(call.method, call.path, {
      query: call.query,
      projectId: call.projectId,
      body: call.json,
      form,
      accept: '*/*',
      signal: abort.signal,
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    // Read only what is wanted: a preview of a large file stops after `maxBytes`.
    const limit = call.maxBytes ?? Number.POSITIVE_INFINITY;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > limit) {
        chunks.push(value.subarray(0, limit - size));
        size = limit;
        truncated = true;
        abort.abort();
        break;
      }
      chunks.push(value);
      size += value.length;
    }
    const data = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
    return { status: res.status, headers, data, truncated };
  }

  async download(req: DownloadRequest): Promise<DownloadResult> {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    const fetchChunk = async (cursor: string | undefined) => {
      const res = await this.fetch('GET', req.path, {
        query: { ...req.query, ...(cursor ? { cursor } : {}) },
        projectId: req.projectId,
        accept: 'application/octet-stream',
      });
      return { data: new Uint8Array(await res.arrayBuffer()), header: (name: string) => res.headers.get(name) ?? undefined };
    };
    let bytes: number;
    try {
      ({ bytes } = await downloadByCursor(fetchChunk, (data) => void parts.push(data as Uint8Array<ArrayBuffer>), !!req.cursor));
    } catch (err) {
      throw err instanceof CursorDownloadError ? new ApiError({ name: err.name, message: err.message }) : err;
    }
    const url = URL.createObjectURL(new Blob(parts, { type: 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = req.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return { saved: true, bytes, chunks: parts.length };
  }
}
