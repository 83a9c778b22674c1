/** `GET /healthz` (no auth) and `GET /openapi.json` (generated from the route schemas). */
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';

export const healthFeature: Feature = {
  name: 'health',
  register(app: FastifyInstance) {
    app.get('/healthz', { config: { public: true }, schema: { hide: true } as object }, async () => ({ ok: true }));
    app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
  },
};
