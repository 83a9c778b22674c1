/**
 * The Playwright trace viewer shipped with playwright-core (`lib/vite/traceViewer`: its page,
 * bundles, styles and service worker), served as files the engine owns. A name is looked up
 * only among that folder's files (listed once), so no request path reaches anything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
};

let listing: { dir: string; files: Set<string> } | undefined;

/** playwright-core's trace viewer folder and the relative names of its files. */
function viewerFiles(): { dir: string; files: Set<string> } {
  if (listing) return listing;
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'lib', 'vite', 'traceViewer');
  const files = new Set<string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(name);
      else if (e.isFile()) files.add(name);
    }
  };
  walk('');
  listing = { dir, files };
  return listing;
}

/** One file of the viewer, or undefined when there is no such file. */
export function traceViewerFile(name: string): { body: Buffer; contentType: string } | undefined {
  const { dir, files } = viewerFiles();
  if (!files.has(name)) return undefined;
  return { body: fs.readFileSync(path.join(dir, name)), contentType: TYPES[path.extname(name)] ?? 'application/octet-stream' };
}
