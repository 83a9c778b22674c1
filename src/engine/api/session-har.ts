/**
 * `GET /browsers/{id}/har` (issue 17 item 3): the session's network as a HAR 1.2 download,
 * built from its retained `network` telemetry (`runtime/telemetry/har-document.ts`), for a
 * running session or an ended one while its telemetry is retained. `bodies=true` adds request
 * bodies, each cut at `max_body_bytes` (default 64 KiB). With network telemetry off the document
 * has no entries and says so in its comment.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { harOf } from '../runtime/telemetry/har-document.js';
import type { TelemetryEnvelope } from '../runtime/telemetry/telemetry-event.js';
import { ENGINE_VERSION } from '../engine-version.js';
import { HarQuerySchema as HarQuery, InspectSessionParamSchema as IdParam } from '../../shared/wire/session-inspect.js';

const DEFAULT_BODY_CAP = 64 * 1024;

export const sessionHarFeature: Feature<'sessions' | 'telemetry'> = {
  name: 'session-har',
  register(app, _ctx, { sessions, telemetry }) {
    app.get('/browsers/:id/har', { schema: { tags: ['browser telemetry'], params: IdParam, querystring: HarQuery } }, async (req, reply) => {
      const id = req.params.id;
      const running = await sessions.require(req.auth, id).catch((err) => err as Error);
      let envelopes: TelemetryEnvelope[];
      let networkOn: boolean;
      let sessionId: string;
      if (running instanceof Error) {
        // An ended session: what its telemetry still retains.
        if (!(running instanceof ApiError) || running.status !== 404 || !(await sessions.exists(req.auth, id))) throw running;
        const tel = telemetry.get(id);
        envelopes = tel?.envelopes() ?? [];
        networkOn = !!tel?.enabled('network');
        sessionId = id;
      } else {
        const tel = telemetry.get(running.id) ?? telemetry.attach(running);
        envelopes = tel.envelopes();
        networkOn = tel.enabled('network');
        sessionId = running.id;
      }
      const comment = networkOn ? undefined : "this session's network telemetry is off: enable telemetry.browser.network to record requests";
      const har = harOf(
        envelopes,
        { bodies: !!req.query.bodies, maxBodyBytes: req.query.max_body_bytes ?? DEFAULT_BODY_CAP, creatorVersion: ENGINE_VERSION },
        comment,
      );
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${sessionId.replace(/[^\w.-]/g, '_')}.har"`)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(har));
    });
  },
};
