/**
 * The desktop IPC contract: every channel the renderer may invoke on main, with a TypeBox
 * schema for its arguments (main validates each payload against it before acting) and the
 * type of its result; the events main pushes; and `ExposedApi`, the one object the preload
 * exposes as `window.api`. Written before the handlers, so both sides compile against it.
 * Browser-safe (TypeBox is plain JS), so the renderer can import the types.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Query values as the official client encodes them: arrays comma-joined (see query.ts). */
export const QueryValueSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())]);
export const QuerySchema = Type.Record(Type.String({ maxLength: 256 }), QueryValueSchema);
export type Query = Static<typeof QuerySchema>;

/** An API path on the active connection: absolute, no scheme/host, query, fragment or backslash. */
export const ApiPathSchema = Type.String({ minLength: 1, maxLength: 2048, pattern: "^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$" });

export const ApiRequestSchema = Type.Object(
  {
    method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
    path: ApiPathSchema,
    query: Type.Optional(QuerySchema),
    body: Type.Optional(Type.Unknown()),
    /** Sent as X-Kernel-Project-Id. */
    projectId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type ApiRequest = Static<typeof ApiRequestSchema>;

/** A successful HTTP exchange; non-2xx answers come back as an IpcError instead. */
export interface ApiResponse {
  status: number;
  /** Only the headers the UI reads (pagination cursors, content type), lower-cased. */
  headers: Record<string, string>;
  body: unknown;
}

export const StreamRequestSchema = Type.Object(
  { path: ApiPathSchema, query: Type.Optional(QuerySchema), projectId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) },
  { additionalProperties: false },
);
export type StreamRequest = Static<typeof StreamRequestSchema>;

export const DownloadRequestSchema = Type.Object(
  {
    path: ApiPathSchema,
    query: Type.Optional(QuerySchema),
    projectId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    /** Suggested file name in the save dialog. */
    filename: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\]+$' }),
    /** Follow `X-Next-Cursor` until `X-Has-More: false` (audit export chunks) and concatenate. */
    cursor: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DownloadRequest = Static<typeof DownloadRequestSchema>;
export interface DownloadResult {
  /** False when the user cancelled the save dialog. */
  saved: boolean;
  bytes: number;
  chunks: number;
  /** Where it was saved (desktop) — the renderer shows it, nothing more. */
  location?: string;
}

/**
 * Binary calls (uploads, file previews, screenshots) carry their bytes inside one IPC message,
 * so each direction is capped well under Chromium's IPC message limit. Larger downloads go
 * through `api:download`, which streams to a file in main.
 */
export const MAX_BINARY_BYTES = 64 * 1024 * 1024;
const Bytes = Type.Uint8Array({ maxByteLength: MAX_BINARY_BYTES });
const PartName = Type.String({ minLength: 1, maxLength: 256 });
export const MultipartPartSchema = Type.Union([
  Type.Object({ name: PartName, value: Type.String({ maxLength: 1_000_000 }) }, { additionalProperties: false }),
  Type.Object(
    { name: PartName, filename: Type.String({ minLength: 1, maxLength: 255 }), contentType: Type.Optional(Type.String({ maxLength: 255 })), data: Bytes },
    { additionalProperties: false },
  ),
]);
export type MultipartPart = Static<typeof MultipartPartSchema>;

export const BinaryRequestSchema = Type.Object(
  {
    method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
    path: ApiPathSchema,
    query: Type.Optional(QuerySchema),
    projectId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    /** A JSON body (e.g. screenshot options); at most one of `json` and `multipart`. */
    json: Type.Optional(Type.Unknown()),
    /** A multipart/form-data body, fields and files in order. */
    multipart: Type.Optional(Type.Array(MultipartPartSchema, { minItems: 1, maxItems: 1000 })),
    /** Read at most this many bytes of the answer and mark it `truncated` (previews). */
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BINARY_BYTES })),
  },
  { additionalProperties: false },
);
export type BinaryRequest = Static<typeof BinaryRequestSchema>;
export interface BinaryResponse {
  status: number;
  headers: Record<string, string>;
  data: Uint8Array;
  /** True when the answer was longer than `maxBytes` and only its start is in `data`. */
  truncated: boolean;
}

export type Health = 'unknown' | 'ok' | 'down';

/** What the renderer may know about a connection: never the key, only its masked form. */
export interface ConnectionInfo {
  id: string;
  kind: 'local' | 'remote';
  name: string;
  url: string;
  maskedKey: string | null;
  health: Health;
  /** Why the last health check failed, for the tooltip. */
  healthMessage?: string;
  active: boolean;
}

export interface VaultStatus {
  /** safeStorage backend (`basic_text`, `gnome_libsecret`, `keychain`, `dpapi`, …). */
  backend: string;
  available: boolean;
  /** True when keys are only obfuscated (Linux `basic_text`): the UI shows a warning. */
  weak: boolean;
}

export interface AppInfo {
  version: string;
  platform: string;
  vault: VaultStatus;
}

/** The local engine's settings (desktop Settings page), applied at its next start. */
export interface DesktopSettings {
  /** 0: a free port at each start. */
  port: number;
  /** '': the app's own (userData/engine). */
  dataDir: string;
  /** Sessions may reach this computer (loopback and its addresses): `--egress-allow-loopback`. */
  egressLoopback: boolean;
  /** null: the engine's default. */
  standby: number | null;
  standbyMemoryMb: number | null;
}

/**
 * What the page sends: numbers as typed (text too), so main's rules (src/main/desktop-settings.ts)
 * refuse a bad value with a message the page shows, rather than a schema path. '' or null: the default.
 */
const Numeric = Type.Union([Type.Number(), Type.String({ maxLength: 32 }), Type.Null()]);
export const DesktopSettingsInputSchema = Type.Object(
  { port: Numeric, dataDir: Type.String({ maxLength: 4096 }), egressLoopback: Type.Boolean(), standby: Numeric, standbyMemoryMb: Numeric },
  { additionalProperties: false },
);
export type DesktopSettingsInput = Static<typeof DesktopSettingsInputSchema>;

/** The local engine as the tray and the Settings page show it. */
export interface EngineStatusInfo {
  status: 'stopped' | 'starting' | 'running' | 'stopping' | 'error';
  /** Why the last start failed. */
  error?: string;
  url?: string;
  dataDir?: string;
  /** Running browser sessions. */
  sessions: number;
}

export interface SettingsView {
  settings: DesktopSettings;
  /** What an empty data dir means. */
  defaultDataDir: string;
  /** The saved settings differ from those the running engine started with. */
  restartNeeded: boolean;
  engine: EngineStatusInfo;
}

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const AddConnectionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://[^\\s]+$' }),
    apiKey: Type.String({ minLength: 8, maxLength: 4096, pattern: '^\\S+$' }),
  },
  { additionalProperties: false },
);
const IdArg = Type.Object({ id: Id }, { additionalProperties: false });

/** Argument schemas, one tuple per invoke channel. */
export const invokeArgs = {
  'app:info': Type.Tuple([]),
  'connections:list': Type.Tuple([]),
  'connections:add': Type.Tuple([AddConnectionSchema]),
  'connections:remove': Type.Tuple([IdArg]),
  'connections:activate': Type.Tuple([IdArg]),
  'connections:check': Type.Tuple([IdArg]),
  'api:request': Type.Tuple([ApiRequestSchema]),
  'api:download': Type.Tuple([DownloadRequestSchema]),
  'api:binary': Type.Tuple([BinaryRequestSchema]),
  'shell:open-external': Type.Tuple([Type.Object({ url: Type.String({ maxLength: 4096, pattern: '^https?://' }) }, { additionalProperties: false })]),
  /** DevTools on a session's tab or the trace viewer, in a native window (main checks it is the connected engine's). */
  'inspect:open-window': Type.Tuple([
    Type.Object({ url: Type.String({ maxLength: 8192, pattern: '^https?://' }), title: Type.String({ maxLength: 1000 }) }, { additionalProperties: false }),
  ]),
  'settings:get': Type.Tuple([]),
  /** Validated and saved; applied at the next engine start (`engine:restart`). */
  'settings:save': Type.Tuple([DesktopSettingsInputSchema]),
  'engine:restart': Type.Tuple([]),
} satisfies Record<string, TSchema>;

/** Result type of each invoke channel. */
export interface InvokeResults {
  'app:info': AppInfo;
  'connections:list': ConnectionInfo[];
  'connections:add': ConnectionInfo;
  'connections:remove': ConnectionInfo[];
  'connections:activate': ConnectionInfo;
  'connections:check': ConnectionInfo;
  'api:request': ApiResponse;
  'api:download': DownloadResult;
  'api:binary': BinaryResponse;
  'shell:open-external': null;
  'inspect:open-window': null;
  'settings:get': SettingsView;
  'settings:save': SettingsView;
  'engine:restart': SettingsView;
}

export type InvokeChannel = keyof typeof invokeArgs & keyof InvokeResults;
export type InvokeArgs<C extends InvokeChannel> = Static<(typeof invokeArgs)[C]>;
export type InvokeResult<C extends InvokeChannel> = InvokeResults[C];

/** Events main pushes to the renderer. */
export interface EventPayloads {
  'connections:changed': ConnectionInfo[];
  'engine:status': EngineStatusInfo;
}
export type EventChannel = keyof EventPayloads;
export { INVOKE_CHANNELS, EVENT_CHANNELS, STREAM_OPEN_CHANNEL } from './channels.js';

/** The Error object (wire §1.6) plus the HTTP status, as it crosses IPC. */
export interface IpcError {
  name: string;
  message: string;
  status?: number;
  code?: string;
  details?: Array<{ code?: string; message?: string }>;
}
export type IpcResult<T> = { result: T } | { error: IpcError };

/** Messages on a stream's MessagePort. main → renderer: frame/end; renderer → main: dispose. */
export type StreamMessage = { type: 'frame'; data: unknown } | { type: 'end'; error?: IpcError };
export type StreamControl = { type: 'dispose' };

export interface StreamHandlers {
  onFrame(data: unknown): void;
  /** Called once: the server closed the stream, it failed (error), or it was disposed. */
  onEnd(error?: IpcError): void;
}

export interface StreamSubscription {
  dispose(): void;
}

/** `window.api` in the desktop renderer. Absent in the web console. */
export interface ExposedApi {
  invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<IpcResult<InvokeResult<C>>>;
  openStream(request: StreamRequest, handlers: StreamHandlers): StreamSubscription;
  on<E extends EventChannel>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}
