/**
 * `GET /browsers/{id}/har` (issue 17 item 3): the session's network as a HAR 1.2 download,
 * built from its retained `network` telemetry and response capture
 * (`runtime/telemetry/har-document.ts`), for a running session or an ended one while its
 * telemetry is retained (in the engine, then in its post-mortem). `bodies=true` adds request bodies and the response bodies the session
 * kept (`telemetry.browser.network.bodies`, while it runs), each cut at `max_body_bytes` (default
 * 64 KiB). What the document lacks (network telemetry off, bodies not kept) its comment says.
 */
import type { Feature } from '../feature.js';
import { harOf } from '../runtime/telemetry/har-document.js';
import type { SessionTelemetry } from '../runtime/telemetry/session-telemetry.js';
import { ENGINE_VERSION } from '../engine-version.js';
import { route } from '../route.js';
import { endedSession } from './ended-session.js';
import type { TelemetryEnvelope } from '../runtime/telemetry/telemetry-event.js';

const DEFAULT_BODY_CAP = 64 * 1024;

/** Why the document lacks what was asked, if it does. */
function commentOf(tel: SessionTelemetry | undefined, bodies: boolean): string | undefined {
  if (!tel?.enabled('network')) return "this session's network telemetry is off: enable telemetry.browser.network to record requests";
  if (!bodies) return undefined;
  if (tel.endedAt !== undefined) return 'response bodies were released when the session ended';
  if (!tel.config.network.bodies) return 'response bodies are kept only while telemetry.browser.network.bodies is on (create or PATCH)';
  return undefined;
}

/** The same for a post-mortem's events: network off shows as no network event at all. */
function commentOfRecord(envelopes: TelemetryEnvelope[], bodies: boolean): string | undefined {
  if (!envelopes.some((e) => e.event.category === 'network')) return 'no network telemetry was recorded for this session';
  return bodies ? 'response bodies were released when the session ended' : undefined;
}

export const sessionHarFeature: Feature<'sessions' | 'telemetry' | 'postmortem'> = {
  name: 'session-har',
  register(app, _ctx, { sessions, telemetry, postmortem }) {
    route(app, 'GET /browsers/:id/har', async (req, reply) => {
      const ended = await endedSession(sessions, req);
      let tel: SessionTelemetry | undefined;
      let envelopes: TelemetryEnvelope[] | undefined;
      let sessionId: string;
      if (ended) {
        // An ended session: what the engine still holds of its telemetry, else its post-mortem.
        tel = telemetry.get(ended);
        envelopes = tel ? undefined : (await postmortem.read(ended))?.telemetry;
        sessionId = ended;
      } else {
        const running = await sessions.require(req.auth, req.params.id);
        tel = telemetry.get(running.id) ?? telemetry.attach(running);
        sessionId = running.id;
      }
      const bodies = !!req.query.bodies;
      const har = harOf(
        envelopes ?? tel?.envelopes() ?? [],
        { bodies, maxBodyBytes: req.query.max_body_bytes ?? DEFAULT_BODY_CAP, creatorVersion: ENGINE_VERSION, responses: tel?.responses },
        envelopes ? commentOfRecord(envelopes, bodies) : commentOf(tel, bodies),
      );
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${sessionId.replace(/[^\w.-]/g, '_')}.har"`)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(har));
    });
  },
};
