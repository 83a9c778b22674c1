/**
 * `GET /browsers/{id}/logs/stream` (wire §3.10): SSE of `{event:"log", timestamp, message}`.
 * `source=path` + `path` tails a file of the session filesystem (`follow` default true; false =
 * current content, then the stream closes); `source=supervisor` + `supervisor_process` shows one
 * of the session's own services from `runtime/service-logs.ts`. Streams close when the
 * session ends. Bad or missing parameters are a 400 before any stream opens. An ended session's
 * `source=supervisor` lines come from its post-mortem (then the stream closes); its files are gone,
 * so `source=path` stays a 404 there.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import { requireRegularFile } from '../runtime/session-fs/session-files.js';
import { tailFile } from '../runtime/log-tail.js';
import { requireSession } from './session-fs.js';
import { type LogStreamFrame } from '../../shared/wire/session-logs.js';
import { route } from '../route.js';
import { endedSession } from './ended-session.js';
import { SUPERVISOR_SERVICES } from '../runtime/service-logs.js';

export const sessionLogsFeature: Feature<'sessions' | 'serviceLogs' | 'postmortem'> = {
  name: 'session-logs',
  register(app, _ctx, { sessions, serviceLogs: logs, postmortem }) {
    route(app, 'GET /browsers/:id/logs/stream', async (req, reply) => {
      const q = req.query;
      const follow = q.follow ?? true;
      const ended = q.source === 'supervisor' ? await endedSession(sessions, req) : undefined;
      if (ended) {
        const kept = (await postmortem.read(ended))?.logs ?? {};
        const valid = [...SUPERVISOR_SERVICES, ...Object.keys(kept).filter((n) => !(SUPERVISOR_SERVICES as readonly string[]).includes(n))];
        if (!q.supervisor_process) throw ApiError.invalidField('supervisor_process', 'is required when source=supervisor');
        if (!valid.includes(q.supervisor_process)) throw ApiError.invalidField('supervisor_process', `must be one of: ${valid.join(', ')}`);
        const sse = openSse(reply);
        for (const l of kept[q.supervisor_process] ?? []) sse.send({ event: 'log', ...l } satisfies LogStreamFrame);
        return sse.close();
      }
      // No per-stream cleanup on the session's scope: its log rings end with it already (the create
      // pipeline's step), and a step deferred here — newer, so closed first — dropped them before
      // the post-mortem captured them: an ended session whose logs were watched kept none.
      const s = await requireSession(sessions, req);

      if (q.source === 'supervisor') {
        if (!q.supervisor_process) throw ApiError.invalidField('supervisor_process', 'is required when source=supervisor');
        const valid = logs.services(s.id);
        if (!valid.includes(q.supervisor_process)) throw ApiError.invalidField('supervisor_process', `must be one of: ${valid.join(', ')}`);
        const sse = openSse(reply);
        const release = follow ? s.holdActive() : () => {};
        const unsubscribe = logs.subscribe(
          s.id,
          q.supervisor_process,
          (l) => sse.send({ event: 'log', ...l } satisfies LogStreamFrame),
          () => sse.close(),
          follow,
        );
        sse.onClose(() => {
          unsubscribe();
          release();
        });
        if (!follow) sse.close();
        return;
      }

      if (!q.path) throw ApiError.invalidField('path', 'is required when source=path');
      if (q.supervisor_process) throw ApiError.invalidField('supervisor_process', 'is only valid with source=supervisor');
      const virtual = await requireRegularFile(s.dirs.root, q.path);

      const sse = openSse(reply);
      const stop = new AbortController();
      const onEnd = () => stop.abort();
      s.signal.addEventListener('abort', onEnd, { once: true });
      const release = follow ? s.holdActive() : () => {};
      sse.onClose(() => {
        stop.abort();
        s.signal.removeEventListener('abort', onEnd);
        release();
      });
      tailFile({
        root: s.dirs.root,
        path: virtual,
        follow,
        signal: stop.signal,
        onLine: (message) => sse.send({ event: 'log', timestamp: new Date().toISOString(), message } satisfies LogStreamFrame),
      })
        .catch((err) => {
          const e = err instanceof ApiError ? err : new ApiError(500, 'tail_failed', 'the file could not be read');
          sse.send({ event: 'error', timestamp: new Date().toISOString(), error: { code: e.code, message: e.message } } satisfies LogStreamFrame);
        })
        .finally(() => sse.close());
    });
  },
};
