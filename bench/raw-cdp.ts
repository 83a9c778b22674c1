/**
 * The benchmarks' raw CDP client over a WebSocket they opened themselves (no other client
 * stays attached to the browser): commands typed from devtools-protocol like the engine's
 * own (src/engine/runtime/chromium/cdp-types.ts). Events are read by the caller's own
 * `message` listener; this one only settles command answers.
 */
import type { WebSocket } from 'ws';
import type { CdpMethod, CdpParams, CdpResult } from '../src/engine/runtime/chromium/cdp-types.js';

export type RawSend = <M extends CdpMethod>(method: M, params?: CdpParams<M>, sessionId?: string) => Promise<CdpResult<M>>;

export function rawCdp(ws: WebSocket): RawSend {
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as { id?: number; result?: unknown };
    if (m.id) pending.get(m.id)?.(m.result);
  });
  return <M extends CdpMethod>(method: M, params?: CdpParams<M>, sessionId?: string) =>
    new Promise<CdpResult<M>>((resolve) => {
      // The answer to this id is this method's result.
      pending.set(++id, resolve as (v: unknown) => void);
      ws.send(JSON.stringify({ id, method, params: params ?? {}, sessionId }));
    });
}
