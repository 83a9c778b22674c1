/**
 * One session's OTLP export (runtime/telemetry/otlp-session-export.ts) against a real OTLP/HTTP
 * receiver, without a browser: an export that starts after its session's telemetry already ended
 * (the session crashed while it was starting) sends the retained events, closes, and leaves no
 * connection open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpSessionExport, type ExportOutcome } from '../../../src/engine/runtime/telemetry/otlp-session-export.js';
import { SessionTelemetry, type CategorySwitches } from '../../../src/engine/runtime/telemetry/session-telemetry.js';
import { TELEMETRY_CATEGORIES } from '../../../src/engine/runtime/telemetry/telemetry-event.js';
import { otlpHostPolicy } from '../../../src/engine/runtime/telemetry/otlp-host-policy.js';
import { egressPolicyOf } from '../../../src/engine/runtime/proxy-forwarder/egress-policy.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const switches = Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, { enabled: true }])) as unknown as CategorySwitches;
let recv: OtlpReceiver;

beforeAll(async () => {
  recv = await startOtlpReceiver();
});
afterAll(() => recv?.close());

describe('OTLP export of one session', () => {
  it('started after the session’s telemetry ended: sends the retained events, closes, no connection left', async () => {
    const tel = new SessionTelemetry('s-ended', switches, { capacity: 100, maxBytes: 1 << 20 }, () => Date.now());
    tel.emit('console', 'console_log', { source: { kind: 'cdp' }, data: { text: 'before the end' } });
    tel.end(Date.now());
    const outcomes: ExportOutcome[] = [];
    const exp = new OtlpSessionExport(tel, {
      sessionId: 's-ended',
      serviceVersion: 'test',
      policy: otlpHostPolicy([], egressPolicyOf([])),
      target: async () => ({ endpoint: recv.url, headers: {} }),
      onOutcome: (o) => outcomes.push(o),
      delayMs: 50,
      timeoutMs: 4000,
    });
    await exp.close();
    expect(recv.records.filter((r) => r.resource['session.id'] === 's-ended').map((r) => r.eventName)).toEqual(['console_log']);
    expect(outcomes).toEqual([{ ok: true, records: 1 }]);
    await pollUntil(
      'no connection left open',
      () => recv.openConnections(),
      (n) => n === 0,
    );
  });
});
