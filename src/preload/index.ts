/**
 * Preload bridge: the only surface the renderer sees of the desktop process, exposed as
 * `window.api` through contextBridge. It is deliberately empty until the IPC contract in
 * `src/shared/ipc` grows; the renderer must work without it (web mode talks HTTP instead).
 */
import { contextBridge } from 'electron';

/** What the renderer may call on `window.api`; grows with the IPC channel map. */
export type DesktopApi = Readonly<Record<string, never>>;

const api: DesktopApi = Object.freeze({});

contextBridge.exposeInMainWorld('api', api);
