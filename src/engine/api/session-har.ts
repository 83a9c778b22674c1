/**
 * `GET /browsers/{id}/har` (issue 17 item 3): the session's network as a HAR 1.2 download,
 * built from its retained `network` telemetry and response capture
 * (`runtime/telemetry/har-document.ts`), for a running session or an ended one while its
 * telemetry is retained. `bodies=true` adds request bodies and the response bodies the session
 * kept (`telemetry.browser.network.bodies`, while it runs), each cut at `max_body_bytes` (default
 * 64 KiB). What the document lacks (network telemetry off, bodies not kept) its comment says.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { harOf } from '../runtime/telemetry/har-document.js';
import type { SessionTelemetry } from '../runtime/telemetry/session-telemetry.js';
import { ENGINE_VERSION } from '../engine-version.js';
import { route } from '../route.js';

const DEFAULT_BODY_CAP = 64 * 1024;

/** Why the document lacks what was asked, if it does. */
function commentOf(tel: SessionTelemetry | undefined, bodies: boolean): string | undefined {
  if (!tel?.enabled('network')) return "this session's network telemetry is off: enable telemetry.browser.network to record requests";
  if (!bodies) return undefined;
  if (tel.endedAt !== undefined) return 'response bodies were released when the session ended';
  if (!tel.config.network.bodies) return 'response bodies are kept only while telemetry.browser.network.bodies is on (create or PATCH)';
  return undefined;
}

export const sessionHarFeature: Feature<'sessions' | 'telemetry'> = {
  name: 'session-har',
  register(app, _ctx, { sessions, telemetry }) {
    route(app, 'GET /browsers/:id/har', async (req, reply) => {
      const id = req.params.id;
      const running = await sessions.require(req.auth, id).catch((err) => err as Error);
      let tel: SessionTelemetry | undefined;
      let sessionId: string;
      if (running instanceof Error) {
        // An ended session: what its telemetry still retains.
        if (!(running instanceof ApiError) || running.status !== 404 || !(await sessions.exists(req.auth, id))) throw running;
        tel = telemetry.get(id);
        sessionId = id;
      } else {
        tel = telemetry.get(running.id) ?? telemetry.attach(running);
        sessionId = running.id;
      }
      const bodies = !!req.query.bodies;
      const har = harOf(
        tel?.envelopes() ?? [],
        { bodies, maxBodyBytes: req.query.max_body_bytes ?? DEFAULT_BODY_CAP, creatorVersion: ENGINE_VERSION, responses: tel?.responses },
        commentOf(tel, bodies),
      );
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${sessionId.replace(/[^\w.-]/g, '_')}.har"`)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(har));
    });
  },
};
