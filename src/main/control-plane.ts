/**
 * Control-plane calls made by main on the renderer's behalf, with the active connection's key
 * (which never crosses into the renderer). JSON requests answer `ApiResponse` or throw an
 * `ApiCallError` carrying the server's Error object; SSE streams are parsed here and handed
 * frame by frame to a sink (main forwards them over a MessagePort); downloads follow the audit
 * export cursor protocol (wire §2.3) and verify each chunk's SHA-256.
 */
import fs from 'node:fs/promises';
import { FormData, request as undiciRequest } from 'undici';
import { readJsonFrames, SseFrameError } from '../shared/sse-frames.js';
import { CursorDownloadError, downloadByCursor } from '../shared/cursor-download.js';
import {
  MAX_BINARY_BYTES,
  type ApiRequest,
  type ApiResponse,
  type BinaryRequest,
  type BinaryResponse,
  type DownloadRequest,
  type DownloadResult,
  type IpcError,
  type MultipartPart,
  type Query,
  type StreamRequest,
} from '../shared/ipc/contract.js';
import { encodeQuery } from '../shared/ipc/query.js';
import type { Target } from './connections.js';

/** Headers the UI may read; everything else stays in main. */
const EXPOSED_HEADERS = ['content-type', 'x-has-more', 'x-next-offset', 'x-next-page-token', 'x-row-count'];

export class ApiCallError extends Error {
  constructor(readonly error: IpcError) {
    super(error.message);
    this.name = error.name;
  }
}

export type HttpRequest = typeof undiciRequest;

export interface ControlPlaneDeps {
  target: () => Promise<Target>;
  /** undici's `request`; injectable for tests. */
  http?: HttpRequest;
  /** Asks where to save a download; null = cancelled. */
  chooseSavePath?: (suggestedName: string) => Promise<string | null>;
}

export interface StreamSink {
  frame(data: unknown): void;
  end(error?: IpcError): void;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Builds the URL on the target's origin; refuses paths that would leave its base path. */
export function targetUrl(base: string, path: string, query?: Query): string {
  const badSegment = (seg: string): boolean => {
    try {
      const d = decodeURIComponent(seg);
      return d === '.' || d === '..' || d.includes('/') || d.includes('\\');
    } catch {
      return true;
    }
  };
  if (path.split('/').some(badSegment)) throw new ApiCallError({ name: 'ValidationError', message: `invalid API path: ${path}` });
  const baseUrl = new URL(base);
  const url = new URL(baseUrl.pathname.replace(/\/+$/, '') + path + encodeQuery(query), baseUrl);
  if (url.origin !== baseUrl.origin) throw new ApiCallError({ name: 'ValidationError', message: `invalid API path: ${path}` });
  return url.toString();
}

function errorFromBody(status: number, text: string): IpcError {
  try {
    const body = JSON.parse(text) as { code?: string; message?: string; details?: IpcError['details'] };
    if (body && typeof body.message === 'string') return { name: 'ApiError', status, code: body.code, message: body.message, details: body.details };
  } catch {}
  return { name: 'ApiError', status, message: text.trim() ? `${status}: ${text.trim().slice(0, 500)}` : `${status} status code (no body)` };
}

function connectionError(url: string, err: unknown): ApiCallError {
  const reason = err instanceof Error ? err.message : String(err);
  return new ApiCallError({ name: 'ConnectionError', message: `cannot reach ${new URL(url).origin}: ${reason}` });
}

export class ControlPlane {
  private readonly http: HttpRequest;

  constructor(private readonly deps: ControlPlaneDeps) {
    this.http = deps.http ?? undiciRequest;
  }

  private async open(
    method: string,
    path: string,
    opts: { query?: Query; body?: unknown; form?: FormData; projectId?: string; accept?: string; signal?: AbortSignal },
  ) {
    const t = await this.deps.target().catch((err: unknown) => {
      throw new ApiCallError({ name: 'ConnectionError', message: err instanceof Error ? err.message : String(err) });
    });
    const url = targetUrl(t.url, path, opts.query);
    const headers: Record<string, string> = { authorization: `Bearer ${t.apiKey}`, accept: opts.accept ?? 'application/json' };
    if (opts.projectId) headers['x-kernel-project-id'] = opts.projectId;
    let body: string | FormData | undefined = opts.form;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    try {
      const res = await this.http(url, { method: method as 'GET', headers, body, signal: opts.signal });
      if (res.statusCode >= 400) {
        const text = await res.body.text();
        throw new ApiCallError(errorFromBody(res.statusCode, text));
      }
      return res;
    } catch (err) {
      if (err instanceof ApiCallError) throw err;
      if (opts.signal?.aborted) throw new ApiCallError({ name: 'AbortError', message: 'cancelled' });
      throw connectionError(url, err);
    }
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    const res = await this.open(req.method, req.path, req);
    const headers: Record<string, string> = {};
    for (const h of EXPOSED_HEADERS) {
      const v = headerValue(res.headers[h]);
      if (v !== undefined) headers[h] = v;
    }
    const text = await res.body.text();
    let body: unknown = null;
    if (res.statusCode !== 204 && text) body = /json/.test(headers['content-type'] ?? '') ? JSON.parse(text) : text;
    return { status: res.statusCode, headers, body };
  }

  /**
   * A call with a binary side: a multipart body built from the renderer's parts and/or an answer
   * returned as bytes. The answer is read up to `maxBytes` (then cut and marked `truncated`);
   * without `maxBytes`, an answer over MAX_BINARY_BYTES is refused rather than cut silently.
   */
  async binary(req: BinaryRequest): Promise<BinaryResponse> {
    if (req.json !== undefined && req.multipart)
      throw new ApiCallError({ name: 'ValidationError', message: 'a binary call takes either a JSON body or a multipart body, not both' });
    const sent = (req.multipart ?? []).reduce((n, p) => n + ('data' in p ? p.data.byteLength : p.value.length), 0);
    if (sent > MAX_BINARY_BYTES)
      throw new ApiCallError({
        name: 'ValidationError',
        message: `the upload is ${sent} bytes; the desktop app sends at most ${MAX_BINARY_BYTES} bytes per call`,
      });
    const abort = new AbortController();
    const res = await this.open(req.method, req.path, {
      query: req.query,
      projectId: req.projectId,
      body: req.json,
      form: req.multipart ? toFormData(req.multipart) : undefined,
      accept: '*/*',
      signal: abort.signal,
    });
    const headers: Record<string, string> = {};
    for (const h of [...EXPOSED_HEADERS, 'content-length', 'content-disposition']) {
      const v = headerValue(res.headers[h]);
      if (v !== undefined) headers[h] = v;
    }
    const limit = req.maxBytes ?? MAX_BINARY_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size + chunk.length > limit) {
        if (req.maxBytes === undefined) {
          abort.abort();
          throw new ApiCallError({ name: 'ResponseTooLarge', message: `the answer is larger than ${limit} bytes; download it instead` });
        }
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
        truncated = true;
        // Stop reading: the rest of a large file is not wanted (previews).
        abort.abort();
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    const all = Buffer.concat(chunks, size);
    return { status: res.statusCode, headers, data: new Uint8Array(all.buffer, all.byteOffset, all.byteLength), truncated };
  }

  /** Opens an SSE stream; frames go to `sink` until the server ends it or `dispose()` is called. */
  stream(req: StreamRequest, sink: StreamSink): { dispose(): void } {
    const abort = new AbortController();
    let ended = false;
    const end = (error?: IpcError): void => {
      if (ended) return;
      ended = true;
      sink.end(error);
    };
    void (async () => {
      try {
        const res = await this.open('GET', req.path, { query: req.query, projectId: req.projectId, accept: 'text/event-stream', signal: abort.signal });
        await readJsonFrames(
          res.body,
          (frame) => sink.frame(frame),
          () => ended,
        );
        end();
      } catch (err) {
        if (err instanceof SseFrameError) {
          end({ name: err.name, message: err.message });
          abort.abort();
        } else if (abort.signal.aborted) end();
        else end(err instanceof ApiCallError ? err.error : { name: 'StreamError', message: err instanceof Error ? err.message : String(err) });
      }
    })();
    return {
      dispose() {
        abort.abort();
        end();
      },
    };
  }

  /** Saves a binary response (or every chunk of a cursor export) to a file the user picks. */
  async download(req: DownloadRequest): Promise<DownloadResult> {
    if (!this.deps.chooseSavePath) throw new ApiCallError({ name: 'Unsupported', message: 'downloads are not available here' });
    const dest = await this.deps.chooseSavePath(req.filename);
    if (!dest) return { saved: false, bytes: 0, chunks: 0 };
    const file = await fs.open(dest, 'w', 0o600);
    let done: { bytes: number; chunks: number };
    try {
      const fetchChunk = async (cursor: string | undefined) => {
        const query = { ...req.query, ...(cursor ? { cursor } : {}) };
        const res = await this.open('GET', req.path, { query, projectId: req.projectId, accept: 'application/octet-stream' });
        return { data: new Uint8Array(await res.body.arrayBuffer()), header: (name: string) => headerValue(res.headers[name]) };
      };
      done = await downloadByCursor(fetchChunk, async (data) => void (await file.write(data)), !!req.cursor);
    } catch (err) {
      await file.close();
      await fs.rm(dest, { force: true });
      throw err instanceof CursorDownloadError ? new ApiCallError({ name: err.name, message: err.message }) : err;
    }
    await file.close();
    const { bytes, chunks } = done;
    return { saved: true, bytes, chunks, location: dest };
  }
}

function toFormData(parts: MultipartPart[]): FormData {
  const form = new FormData();
  for (const p of parts) {
    if ('data' in p) form.append(p.name, new Blob([p.data as Uint8Array<ArrayBuffer>], { type: p.contentType || 'application/octet-stream' }), p.filename);
    else form.append(p.name, p.value);
  }
  return form;
}

/** Any thrown value → the IpcError the renderer shows. */
export function toIpcError(err: unknown): IpcError {
  if (err instanceof ApiCallError) return err.error;
  if (err instanceof Error) return { name: err.name || 'Error', message: err.message };
  return { name: 'Error', message: String(err) };
}
