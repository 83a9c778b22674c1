/**
 * Serves the built operator UI (the renderer bundle) at `/`. The UI routes with the URL hash,
 * so nothing it needs collides with API paths; its assets are public, the data is not. The icon
 * browsers ask for on every load (`/favicon.ico`) is public too: asked with auth, it would be a 401
 * in every visit's log.
 */
import fsSync from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { App } from '../feature.js';
import { route } from '../route.js';
import { stringField } from '../../shared/string-field.js';

/** The sidebar's mark: SVG (Chromium and Firefox take it at /favicon.ico by its content type). */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bea"/><path d="M10 8h7.5a5 5 0 0 1 2.6 9.3A5.2 5.2 0 0 1 18 26h-8zm4 4v4h3a2 2 0 0 0 0-4zm0 7.5V22h3.6a2.2 2.2 0 0 0 0-4.5z" fill="#fff"/></svg>`;

export async function serveUi(app: App, dir: string): Promise<void> {
  if (!fsSync.existsSync(dir)) return;
  await app.register(fastifyStatic, { root: dir, serve: false });
  // The console itself: the engine's own page and scripts (http/tenant-bytes.ts).
  const config = { public: true, enginePage: true } as const;
  route(app, 'GET /', { config }, (_req, reply) => reply.sendFile('index.html'));
  route(app, 'GET /favicon.ico', { config }, (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON));
  route(app, 'GET /assets/*', { config }, (req, reply) => reply.sendFile(`assets/${stringField(req.params, '*') ?? ''}`));
}
