/**
 * Telemetry of a session (wire §3.14, §5.1): `GET /browsers/{id}/telemetry/stream` (SSE, `id:`
 * = seq, JSON envelopes, never an `event:` field, comment keepalive when idle, `replay=all`,
 * `Last-Event-ID` resume, closed when the session ends) and `GET /browsers/{id}/telemetry/events`
 * (paged reads of the retained buffer, `category` and `type` filters). An ended session answers
 * both from what it left: its buffer while the engine still holds it, else its post-mortem
 * (`runtime/postmortem/`) within the retention — the stream then delivers that history (with
 * `replay=all` or `Last-Event-ID`) and ends. Its producers are
 * installed by api/browsers.ts (they run on the sessions' routes): a collector per session from
 * its start, and `api_call` / `platform_api_call` for every API call on a session's routes
 * (session-api-calls.ts).
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import { queryEvents } from '../runtime/telemetry/event-query.js';
import type { TelemetryEnvelope } from '../runtime/telemetry/telemetry-event.js';
import { route } from '../route.js';
import { endedSession } from './ended-session.js';
import type { TelemetryService } from '../runtime/telemetry/telemetry-service.js';
import type { PostmortemStore } from '../runtime/postmortem/postmortem-store.js';

/** An ended session's events: its buffer while the engine holds it, else its post-mortem. */
export async function endedEnvelopes(id: string, telemetry: TelemetryService, postmortem: PostmortemStore): Promise<TelemetryEnvelope[]> {
  return telemetry.get(id)?.envelopes() ?? (await postmortem.read(id))?.telemetry ?? [];
}

export interface TelemetryFeatureOptions {
  keepaliveMs?: number;
}

/**
 * Builds the feature; tests pass a short keepalive. The default reads `BROWSERDECK_TELEMETRY_KEEPALIVE_MS`
 * (the buffer's `BROWSERDECK_TELEMETRY_*` are read where the service is built, compose.ts).
 */
export function createTelemetryFeature(o: TelemetryFeatureOptions = {}): Feature<'sessions' | 'telemetry' | 'postmortem'> {
  return {
    name: 'session-telemetry',
    register(app, ctx, { sessions, telemetry: service, postmortem }) {
      const env = ctx.config.env;
      const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
      const keepaliveMs = o.keepaliveMs ?? num(env.BROWSERDECK_TELEMETRY_KEEPALIVE_MS, 15_000);
      ctx.onStop(() => service.stop());
      ctx.onStop(() => postmortem.stop());

      route(app, 'GET /browsers/:id/telemetry/stream', async (req, reply) => {
        const ended = await endedSession(sessions, req);
        const handle = ended ? undefined : await sessions.require(req.auth, req.params.id);
        const header = req.headers['last-event-id'];
        let after: number | undefined;
        if (header !== undefined && String(header).trim() !== '') {
          const v = String(header).trim();
          if (!/^\d{1,15}$/.test(v)) throw ApiError.invalidField('Last-Event-ID', 'must be a non-negative integer sequence number');
          after = Number(v);
        } else if (req.query.replay === 'all') {
          after = 0;
        }
        const sse = openSse(reply, { keepaliveMs });
        if (!handle) {
          // Ended: what it recorded after `after` (nothing new will come), then the end.
          if (after !== undefined) for (const e of await endedEnvelopes(ended!, service, postmortem)) if (e.seq > after) sse.send(e, e.seq);
          return sse.close();
        }
        const tel = service.get(handle.id) ?? service.attach(handle);
        const sub = tel.buffer.subscribe((e) => sse.send({ seq: e.seq, event: e.item } satisfies TelemetryEnvelope, e.seq), { after, end: () => sse.close() });
        sse.onClose(() => sub.unsubscribe());
      });

      route(app, 'GET /browsers/:id/telemetry/events', async (req, reply) => {
        const id = req.params.id;
        const q = req.query;
        const ended = await endedSession(sessions, req);
        let envelopes: TelemetryEnvelope[];
        if (ended) {
          envelopes = await endedEnvelopes(ended, service, postmortem);
        } else {
          const running = await sessions.require(req.auth, id);
          envelopes = (service.get(running.id) ?? service.attach(running)).envelopes();
        }
        const page = queryEvents(envelopes, { ...q, limit: q.limit ?? 100 }, ctx.clock.now().getTime());
        reply.header('X-Has-More', page.hasMore ? 'true' : 'false');
        reply.header('X-Next-Offset', String(page.nextOffset));
        return page.items;
      });
    },
  };
}

export const sessionTelemetryFeature = createTelemetryFeature();
