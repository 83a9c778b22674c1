/**
 * The audit-recording feature. It must be registered first so its hooks reach every route.
 * Rows go through one batching writer (`services.auditWriter`, built in compose.ts). At stop, the writer is
 * flushed only after the HTTP server has closed and every request it saw has been recorded:
 * requests still finishing while the server shuts down (force-closed streams, 503s) are
 * recorded too, and then nothing more can arrive.
 */
import type { Feature } from '../feature.js';
import { InFlight, installAuditRecorder } from './audit-recorder.js';
import { installUpgradeAudit } from './audit-upgrades.js';

export const auditRecordingFeature: Feature<'auditWriter' | 'auditWorker'> = {
  name: 'audit-recording',
  register(app, ctx, { auditWriter: writer, auditWorker: worker }) {
    const inFlight = new InFlight();
    installAuditRecorder(app, { sink: writer, clock: ctx.clock, defaultOrgId: ctx.orgId, inFlight });
    installUpgradeAudit(app.server, {
      sink: writer,
      clock: ctx.clock,
      defaultOrgId: ctx.orgId,
      inFlight,
      identifyKey: async (key) => {
        const c = await ctx.apiKeys.authenticate(key);
        return c ? { orgId: c.orgId, strategy: c.strategy, userId: c.userId, email: c.email } : null;
      },
    });

    // Fastify runs onClose hooks once the server stopped listening and closed its connections;
    // the last responses' 'close' events may still be a tick away, hence `inFlight.idle`.
    let listening = false;
    let markClosed!: () => void;
    const serverClosed = new Promise<void>((resolve) => (markClosed = resolve));
    app.addHook('onListen', (done) => {
      listening = true;
      done();
    });
    app.addHook('onClose', (_instance, done) => {
      markClosed();
      done();
    });
    ctx.onStop(async () => {
      if (listening) {
        await serverClosed;
        await inFlight.idle(5_000);
      }
      await writer.close();
      await worker?.close();
      if (writer.pending > 0 || writer.dropped > 0) ctx.log.error({ pending: writer.pending, dropped: writer.dropped }, 'audit rows not written at stop');
    });
  },
};
