/**
 * `/telemetry/destinations` (Kernel spec §12): an organization's OTLP destinations. Writes need
 * an org-wide key (403 for a project-scoped key, checked before the body); any API key of the org
 * reads. Header values are accepted on create and PATCH and answered as `""`. Rename and delete
 * answer 409 while a running session or a pool exports to the destination. The exports
 * themselves (`services.telemetryExports`) are closed at engine stop here.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { apiKeyFirst, orgWideKeyFirst } from '../domain/org/access.js';
import { route } from '../route.js';

export const telemetryDestinationsFeature: Feature<'telemetryExports'> = {
  name: 'telemetry-destinations',
  register(app, ctx, { telemetryExports }) {
    const records = telemetryExports.records;
    ctx.onStop(() => telemetryExports.stop());
    const configuring = orgWideKeyFirst('configuring telemetry destinations');

    route(app, 'POST /telemetry/destinations', { onRequest: configuring }, async (req) => records.dto(await records.create(req.auth.orgId, req.body)));
    route(app, 'GET /telemetry/destinations', { onRequest: apiKeyFirst }, async (req, reply) => {
      const page = pageOf(req.query);
      const rows = await records.list(req.auth.orgId, { ...page, name: req.query.name, query: req.query.query });
      return sendPage(reply, rows, page).map((r) => records.dto(r));
    });
    route(app, 'GET /telemetry/destinations/:id', { onRequest: apiKeyFirst }, async (req) => records.dto(await records.get(req.auth.orgId, req.params.id)));
    route(app, 'PATCH /telemetry/destinations/:id', { onRequest: configuring }, async (req) =>
      records.dto(await records.update(req.auth.orgId, req.params.id, req.body ?? {})),
    );
    route(app, 'DELETE /telemetry/destinations/:id', { onRequest: configuring }, async (req, reply) => {
      await records.delete(req.auth.orgId, req.params.id);
      return reply.status(204).send();
    });
  },
};
