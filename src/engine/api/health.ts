/** `GET /healthz` (no auth) and `GET /openapi.json` (generated from the route schemas). */
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { jailStatus } from '../runtime/sandbox/jail-status.js';

export const healthFeature: Feature = {
  name: 'health',
  async register(app: FastifyInstance, ctx) {
    // `jail`: whether tenants' browsers, processes, code and apps run jailed, and why not.
    const jail = await jailStatus(ctx.config);
    const jailBody = jail.bwrap ? { enabled: true } : { enabled: false, reason: jail.reason };
    app.get('/healthz', { config: { public: true }, schema: { hide: true } as object }, async () => ({ ok: true, jail: jailBody }));
    app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
  },
};
