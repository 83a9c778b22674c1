/**
 * Serves the built operator UI (the renderer bundle) at `/`. The UI routes with the URL hash,
 * so nothing it needs collides with API paths; its assets are public, the data is not.
 */
import fsSync from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { App } from '../feature.js';
import { route } from '../route.js';
import { stringField } from '../../shared/string-field.js';

export async function serveUi(app: App, dir: string): Promise<void> {
  if (!fsSync.existsSync(dir)) return;
  await app.register(fastifyStatic, { root: dir, serve: false });
  // The console itself: the engine's own page and scripts (http/tenant-bytes.ts).
  const config = { public: true, enginePage: true } as const;
  route(app, 'GET /', { config }, (_req, reply) => reply.sendFile('index.html'));
  route(app, 'GET /assets/*', { config }, (req, reply) => reply.sendFile(`assets/${stringField(req.params, '*') ?? ''}`));
}
