/**
 * Desktop transport: every call goes to main over the typed `window.api` (main adds the
 * active connection's key, which the renderer never sees). `{error}` results become ApiErrors;
 * streams arrive over a MessagePort that the preload feeds into our frame queue.
 */
import {
  MAX_BINARY_BYTES,
  type BinaryResponse,
  type DownloadRequest,
  type DownloadResult,
  type ExposedApi,
  type HttpMethod,
  type InvokeArgs,
  type InvokeChannel,
  type InvokeResult,
  type MultipartPart,
} from '../../../shared/ipc/contract';
import { ApiError, frameQueue, type BinaryCall, type RequestOptions, type Response, type StreamOptions, type Transport } from './transport';

export class DesktopTransport implements Transport {
  readonly kind = 'desktop' as const;

  constructor(
    private readonly api: ExposedApi,
    private readonly projectId: () => string | undefined = () => undefined,
  ) {}

  /** Invokes a contract channel and unwraps `{result}|{error}`. */
  async invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<InvokeResult<C>> {
    const r = await this.api.invoke(channel, ...args);
    if ('error' in r) throw new ApiError(r.error);
    return r.result;
  }

  async send<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<Response<T>> {
    const projectId = opts.projectId ?? this.projectId();
    const r = await this.invoke('api:request', {
      method,
      path,
      ...(opts.query ? { query: opts.query } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      ...(projectId ? { projectId } : {}),
    });
    return r as Response<T>;
  }

  async request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T> {
    return (await this.send<T>(method, path, opts)).body;
  }

  stream(path: string, opts: StreamOptions = {}): AsyncIterable<unknown> {
    // `sub` is only read when the consumer stops iterating, after it is assigned below.
    const q = frameQueue(() => sub.dispose());
    const projectId = opts.projectId ?? this.projectId();
    const sub = this.api.openStream(
      { path, ...(opts.query ? { query: opts.query } : {}), ...(projectId ? { projectId } : {}) },
      { onFrame: (d) => q.push(d), onEnd: (e) => q.end(e ? new ApiError(e) : undefined) },
    );
    return q.iterable;
  }

  /** Files are read into bytes here (IPC carries no Blobs); main rebuilds the multipart body. */
  async binary(call: BinaryCall): Promise<BinaryResponse> {
    const projectId = call.projectId ?? this.projectId();
    let multipart: MultipartPart[] | undefined;
    if (call.multipart) {
      const total = call.multipart.reduce((n, p) => n + ('blob' in p ? p.blob.size : p.value.length), 0);
      if (total > MAX_BINARY_BYTES)
        throw new ApiError({
          name: 'ValidationError',
          message: `${(total / 1048576).toFixed(0)} MB is more than the desktop app uploads at once (${MAX_BINARY_BYTES / 1048576} MB); upload fewer or smaller files, or use the API`,
        });
      multipart = await Promise.all(
        call.multipart.map(async (p): Promise<MultipartPart> =>
          'blob' in p
            ? { name: p.name, filename: p.filename, ...(p.blob.type ? { contentType: p.blob.type } : {}), data: new Uint8Array(await p.blob.arrayBuffer()) }
            : p,
        ),
      );
    }
    return this.invoke('api:binary', {
      method: call.method,
      path: call.path,
      ...(call.query ? { query: call.query } : {}),
      ...(projectId ? { projectId } : {}),
      ...(call.json !== undefined ? { json: call.json } : {}),
      ...(multipart ? { multipart } : {}),
      ...(call.maxBytes !== undefined ? { maxBytes: call.maxBytes } : {}),
    });
  }

  download(req: DownloadRequest): Promise<DownloadResult> {
    const projectId = req.projectId ?? this.projectId();
    return this.invoke('api:download', { ...req, ...(projectId ? { projectId } : {}) });
  }
}
