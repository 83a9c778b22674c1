/**
 * Fetches an extension from the Chrome Web Store's update service (configurable: the engine
 * option `chromeStoreUrl`, e.g. a mirror or a test server) and turns the CRX it answers into
 * the zip of the unpacked extension. The store may be unreachable (offline installs): that is
 * a 502 `chrome_store_unreachable`, a store that does not answer in time a 504, and a store
 * that answers an error a 502 naming its status — never a 500 and never a hang.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { crxToZip } from './crx.js';

export const DEFAULT_CHROME_STORE_URL = 'https://clients2.google.com/service/update2/crx';
export const DEFAULT_CHROME_STORE_TIMEOUT_MS = 30_000;
/** A CRX larger than this is refused (the store's own packages are far smaller). */
export const MAX_CRX_BYTES = 256 * 1024 * 1024;
/** The Chromium version the update service is asked for packages for. */
const PRODVERSION = '130.0.0.0';

const EXTENSION_ID = /^[a-p]{32}$/;

/**
 * The extension id of a Web Store URL: the last path segment of
 * `https://chromewebstore.google.com/detail/<slug>/<id>` (or the old chrome.google.com/webstore
 * form), or a bare 32-letter id.
 */
export function chromeStoreId(url: string): string {
  if (EXTENSION_ID.test(url)) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw DomainError.invalidField('url', 'must be a Chrome Web Store URL (https://chromewebstore.google.com/detail/<name>/<id>) or an extension id');
  }
  const id = u.pathname
    .split('/')
    .filter(Boolean)
    .find((seg) => EXTENSION_ID.test(seg));
  if (!id) throw DomainError.invalidField('url', 'names no extension: expected https://chromewebstore.google.com/detail/<name>/<32-letter id>');
  return id;
}

export function updateUrl(base: string, id: string, os: string): string {
  const u = new URL(base);
  u.searchParams.set('response', 'redirect');
  u.searchParams.set('os', os);
  u.searchParams.set('arch', 'x64');
  u.searchParams.set('os_arch', 'x86_64');
  u.searchParams.set('nacl_arch', 'x86-64');
  u.searchParams.set('prod', 'chromiumcrx');
  u.searchParams.set('prodchannel', 'unknown');
  u.searchParams.set('prodversion', PRODVERSION);
  u.searchParams.set('acceptformat', 'crx2,crx3');
  u.searchParams.set('x', `id=${id}&uc`);
  return u.toString();
}

async function readCapped(res: Response, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_CRX_BYTES) {
      await reader.cancel();
      throw new DomainError(502, 'chrome_store_bad_package', `the Chrome Web Store package is larger than ${MAX_CRX_BYTES} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

export async function fetchFromChromeStore(opts: { base: string; timeoutMs: number; url: string; os: string }): Promise<{ id: string; zip: Buffer }> {
  const id = chromeStoreId(opts.url);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let res: Response;
  try {
    res = await fetch(updateUrl(opts.base, id, opts.os), { signal, redirect: 'follow' });
  } catch (err) {
    throw storeFailure(err, signal, opts.timeoutMs);
  }
  if (res.status === 204 || res.status === 404) {
    await res.body?.cancel();
    throw new DomainError(404, 'extension_not_found', `the Chrome Web Store has no extension '${id}' for ${opts.os}`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new DomainError(502, 'chrome_store_error', `the Chrome Web Store answered HTTP ${res.status} for extension '${id}'`);
  }
  let buf: Buffer;
  try {
    buf = await readCapped(res, signal);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw storeFailure(err, signal, opts.timeoutMs);
  }
  return { id, zip: crxToZip(buf) };
}

function storeFailure(err: unknown, signal: AbortSignal, timeoutMs: number): DomainError {
  if (signal.aborted) return new DomainError(504, 'chrome_store_timeout', `the Chrome Web Store did not answer within ${Math.round(timeoutMs / 1000)} s`);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new DomainError(
    502,
    'chrome_store_unreachable',
    `the Chrome Web Store could not be reached from this engine (${cause?.code ?? cause?.message ?? (err as Error).message})`,
  );
}
