/**
 * The app-wide transport: chosen once at start (desktop when the preload exposed `window.api`,
 * web otherwise) and read by stores through `transport()`. Components never call fetch or
 * window.api directly.
 */
import type { ExposedApi } from '../../../shared/ipc/contract';
import type { Transport } from './transport';
import { DesktopTransport } from './desktop-transport';
import { WebTransport } from './web-transport';

export * from './transport';
export { DesktopTransport } from './desktop-transport';
export { WebTransport } from './web-transport';

declare global {
  interface Window {
    api?: ExposedApi;
  }
}

let current: Transport | undefined;

export function setTransport(t: Transport): void {
  current = t;
}

export function transport(): Transport {
  if (!current) throw new Error('transport not initialised');
  return current;
}

export function desktopApi(): ExposedApi | undefined {
  return typeof window !== 'undefined' ? window.api : undefined;
}

export function createTransport(opts: { projectId: () => string | undefined; onUnauthorized: () => void }): Transport {
  const api = desktopApi();
  return api ? new DesktopTransport(api, opts.projectId) : new WebTransport(opts);
}
