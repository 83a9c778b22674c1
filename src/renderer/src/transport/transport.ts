/**
 * The Transport: how the UI reaches an engine, identical for every screen. `send`/`request`
 * call the control plane and resolve with parsed JSON or throw an `ApiError` whose message is
 * the server's Error object message; `stream` yields SSE JSON frames until the server ends the
 * stream or the consumer stops iterating (which disposes it); `download` saves a binary
 * response (following the audit-export cursor when asked). Two implementations: web (fetch
 * with the console cookie) and desktop (window.api → main, which holds the keys).
 */
import type { BinaryResponse, DownloadRequest, DownloadResult, HttpMethod, IpcError, Query } from '../../../shared/ipc/contract';

export class ApiError extends Error {
  readonly status?: number;
  readonly code?: string;
  readonly details?: IpcError['details'];

  constructor(e: IpcError) {
    super(e.message);
    this.name = e.name || 'ApiError';
    this.status = e.status;
    this.code = e.code;
    this.details = e.details;
  }
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Overrides the selected project (X-Kernel-Project-Id) for this call. */
  projectId?: string;
}

export interface Response<T> {
  status: number;
  /** Lower-cased; pagination headers (x-has-more, x-next-offset, x-next-page-token). */
  headers: Record<string, string>;
  body: T;
}

export interface StreamOptions {
  query?: Query;
  projectId?: string;
}

/** A multipart field: a string value or a file. */
export type FormPart = { name: string; value: string } | { name: string; filename: string; blob: Blob };

/** A call with a binary side (uploads, file bytes, screenshots); see `Transport.binary`. */
export interface BinaryCall {
  method: HttpMethod;
  path: string;
  query?: Query;
  projectId?: string;
  /** JSON body; or `multipart` for a form upload (not both). */
  json?: unknown;
  multipart?: FormPart[];
  /** Keep only the first `maxBytes` of the answer (`truncated` says whether more existed). */
  maxBytes?: number;
}

export interface Transport {
  readonly kind: 'web' | 'desktop';
  send<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<Response<T>>;
  request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T>;
  /** SSE frames as parsed JSON. Breaking out of `for await` disposes the stream. */
  stream(path: string, opts?: StreamOptions): AsyncIterable<unknown>;
  download(req: DownloadRequest): Promise<DownloadResult>;
  /**
   * A call whose body or answer is binary. Both transports authenticate it like every other
   * call (the console cookie, or main's key), so panes never need the session JWT for it.
   */
  binary(call: BinaryCall): Promise<BinaryResponse>;
}

/** Turns anything thrown into the message the UI shows. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A push-to-pull queue: producers push frames and end it; the consumer iterates. `onReturn`
 * runs when the consumer stops early, so the producer can dispose the underlying stream.
 */
export function frameQueue(onReturn: () => void): { push(v: unknown): void; end(err?: Error): void; iterable: AsyncIterable<unknown> } {
  const buffered: unknown[] = [];
  let waiting: ((r: IteratorResult<unknown>) => void) | null = null;
  let failWaiting: ((e: Error) => void) | null = null;
  let done = false;
  let error: Error | undefined;
  return {
    push(v) {
      if (done) return;
      if (waiting) {
        const w = waiting;
        waiting = failWaiting = null;
        w({ value: v, done: false });
      } else buffered.push(v);
    },
    end(err) {
      if (done) return;
      done = true;
      error = err;
      if (waiting) {
        const w = waiting;
        const f = failWaiting;
        waiting = failWaiting = null;
        if (err && f) f(err);
        else w({ value: undefined, done: true });
      }
    },
    iterable: {
      [Symbol.asyncIterator]() {
        return {
          next() {
            if (buffered.length) return Promise.resolve({ value: buffered.shift(), done: false });
            if (done) return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
            return new Promise((resolve, reject) => {
              waiting = resolve;
              failWaiting = reject;
            });
          },
          return() {
            done = true;
            onReturn();
            return Promise.resolve({ value: undefined, done: true });
          },
        };
      },
    },
  };
}
