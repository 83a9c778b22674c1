/**
 * `/audit-logs/export/destinations` (spec §13): an organization's S3 destinations for
 * continuous audit-log delivery. Create, update, delete and `/test` need an org-wide API key
 * (403 first, whatever the body); any API key of the organization may read them (project keys
 * included, as for OTLP destinations). Credentials are accepted, never answered. The exporter
 * (domain/audit/export-runner.ts) starts once the engine listens and stops with it.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { apiKeyFirst, orgWideKeyFirst } from '../domain/org/access.js';
import { route } from '../route.js';

export const auditDestinationsFeature: Feature<'auditExport'> = {
  name: 'audit-destinations',
  register(app, ctx, { auditExport }) {
    const { records, exporter } = auditExport;
    ctx.onStop(() => exporter.stop());
    const configuring = orgWideKeyFirst('configuring audit log export');

    route(app, 'POST /audit-logs/export/destinations', { onRequest: configuring }, async (req) => records.dto(await records.create(req.auth.orgId, req.body)));
    route(app, 'GET /audit-logs/export/destinations', { onRequest: apiKeyFirst }, async (req, reply) => {
      const page = pageOf(req.query);
      return sendPage(reply, await records.list(req.auth.orgId, page), page).map((r) => records.dto(r));
    });
    route(app, 'GET /audit-logs/export/destinations/:id', { onRequest: apiKeyFirst }, async (req) =>
      records.dto(await records.get(req.auth.orgId, req.params.id)),
    );
    route(app, 'PATCH /audit-logs/export/destinations/:id', { onRequest: configuring }, async (req) =>
      records.dto(await records.update(req.auth.orgId, req.params.id, req.body ?? {})),
    );
    route(app, 'DELETE /audit-logs/export/destinations/:id', { onRequest: configuring }, async (req, reply) => {
      await records.delete(req.auth.orgId, req.params.id);
      return reply.status(204).send();
    });
    route(app, 'POST /audit-logs/export/destinations/:id/test', { onRequest: configuring }, async (req) =>
      exporter.probe(await records.get(req.auth.orgId, req.params.id)),
    );
  },
  started(_ctx, { auditExport }) {
    auditExport.exporter.start();
  },
};
