/**
 * Chromium's own DevTools frontend, as the session's browser serves it on its DevTools server
 * (`/devtools/inspector.html` and the modules, styles and images beside it; a Unix socket when
 * jailed). Assets are bytes (images, fonts), so this does not go through the text-only
 * `devtoolsRequest`. Only plain relative asset paths are asked for: no `..`, no query, no
 * other server path (`/json/…`) reachable through this door.
 */
import http from 'node:http';
import { devtoolsEndpoint } from '../chromium/devtools-address.js';

/** `inspector.html`, `entrypoints/inspector/inspector.js`, `Images/foo.svg`, `locales/en-US.json`… */
const ASSET_PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,300}$/;
const MAX_ASSET_BYTES = 32 * 1024 * 1024;

export function isFrontendAssetPath(p: string): boolean {
  return ASSET_PATH.test(p) && !p.includes('//');
}

export interface FrontendAsset {
  status: number;
  contentType: string;
  body: Buffer;
}

/** GET `/devtools/<assetPath>` from the browser whose endpoint is `wsUrl`. */
export function fetchFrontendAsset(wsUrl: string, assetPath: string, timeoutMs = 15_000): Promise<FrontendAsset> {
  if (!isFrontendAssetPath(assetPath)) return Promise.resolve({ status: 404, contentType: 'text/plain', body: Buffer.from('not found') });
  const e = devtoolsEndpoint(wsUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...(e.socketPath ? { socketPath: e.socketPath } : { host: e.host, port: e.port }),
        method: 'GET',
        path: `/devtools/${assetPath}`,
        // Chromium answers only requests whose Host is an IP or localhost.
        headers: { host: '127.0.0.1' },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_ASSET_BYTES) return void req.destroy(new Error(`DevTools asset ${assetPath} is larger than ${MAX_ASSET_BYTES} bytes`));
          chunks.push(d);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? 'application/octet-stream'), body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`DevTools asset ${assetPath} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
