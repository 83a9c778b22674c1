/**
 * Serves the built operator UI (the renderer bundle) at `/`. The UI routes with the URL hash,
 * so nothing it needs collides with API paths; its assets are public, the data is not.
 */
import fsSync from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { stringField } from '../../shared/string-field.js';

export async function serveUi(app: FastifyInstance, dir: string): Promise<void> {
  if (!fsSync.existsSync(dir)) return;
  await app.register(fastifyStatic, { root: dir, serve: false });
  const hide = { hide: true } as object;
  // The console itself: the engine's own page and scripts (http/tenant-bytes.ts).
  app.get('/', { config: { public: true, enginePage: true }, schema: hide }, (_req, reply) => reply.sendFile('index.html'));
  app.get('/assets/*', { config: { public: true, enginePage: true }, schema: hide }, (req, reply) =>
    reply.sendFile(`assets/${stringField(req.params, '*') ?? ''}`),
  );
}
