/**
 * Issue 25 row 1, for apps: an action's code holds no channel into the engine that can end it.
 * On `main` the app runner had Node's `ipc` stdio: `process.send({cmd: 'NODE_HANDLE_ACK'})` from
 * an action hit an assertion inside Node's child_process in the engine, which exited. Now the
 * channel is a pipe of length-prefixed JSON the engine validates: the action finds no
 * `process.send` (its own error), and bytes it writes to the channel's fd (no JSON, a header over
 * the size limit, a frame of `null`, of Node's internal message, or a forged answer of the wrong
 * shape) end that process only, failing the invocation with a clear reason. Control: the same
 * app's `echo` succeeds before each probe; after each the engine answers `/healthz`, and another
 * session still gets a browser and runs code. The engine runs as its own process, every call
 * raced against its exit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineProcess, type EngineProcess } from '../../helpers/engine-process.js';
import { deploy } from './app-helpers.js';
import { FORGED_APP_ANSWER, RAW_PROBES as BASE_PROBES } from '../../helpers/runner-probes.js';

let e: EngineProcess;

const APP = `
import Kernel from '@onkernel/sdk';
import fs from 'node:fs';
const app = new Kernel().app('probe');
app.action('echo', async (_ctx, payload) => ({ echoed: payload }));
app.action('peek', async (_ctx) => ({ send: typeof process.send, fd: process.env.NODE_CHANNEL_FD ?? null }));
app.action('send', async (_ctx, p) => { process.send(p.message); return 'sent'; });
app.action('raw', async (_ctx, p) => { fs.writeSync(3, Buffer.from(p.hex, 'hex')); await new Promise(() => {}); });
`;

const RAW_PROBES = [...BASE_PROBES, FORGED_APP_ANSWER];

beforeAll(async () => {
  e = await startEngineProcess(['--standby', '0', '--freeze-idle-seconds', '0']);
  const d = await e.guard(deploy(e.client, { 'index.mjs': APP }, { entrypoint: 'index.mjs', version: '1' }));
  expect(d.final.status, d.final.status_reason ?? '').toBe('running');
}, 180_000);

afterAll(async () => {
  await e?.stop();
});

const invoke = (action: string, payload?: unknown) =>
  e.guard(
    e.client.invocations.create({ app_name: 'probe', action_name: action, version: '1', ...(payload !== undefined && { payload: JSON.stringify(payload) }) }),
  );

async function othersCarryOn(): Promise<void> {
  expect(await e.healthy()).toBe(true);
  const other = await e.guard(e.client.browsers.create({ headless: true, timeout_seconds: 120 }));
  try {
    const r = await e.guard(e.client.browsers.playwright.execute(other.session_id, { code: 'return 6 * 7;', timeout_sec: 60 }));
    expect(r).toMatchObject({ success: true, result: 42 });
  } finally {
    await e.guard(e.client.browsers.deleteByID(other.session_id));
  }
}

describe('an app process', { timeout: 300_000 }, () => {
  it('has no process.send and no NODE_CHANNEL_FD; calling it fails only its invocation', async () => {
    // The internal message first: on \`main\` it ended the engine (an assertion in Node's internal/child_process).
    for (const message of [{ cmd: 'NODE_HANDLE_ACK' }, null]) {
      expect(await invoke('echo', { n: 1 })).toMatchObject({ status: 'succeeded', output: JSON.stringify({ echoed: { n: 1 } }) });
      const r = await invoke('send', { message });
      expect(r.status).toBe('failed');
      expect(r.status_reason).toMatch(/process\.send is not a function/);
      expect(await e.healthy()).toBe(true);
    }
    const peek = await invoke('peek');
    expect(peek.status, peek.status_reason ?? '').toBe('succeeded');
    expect(JSON.parse(peek.output!)).toEqual({ send: 'undefined', fd: null });
    await othersCarryOn();
  });

  it('ends a process whose action writes bytes the engine refuses; its invocation fails with a clear reason', async () => {
    for (const [what, hex, reason] of RAW_PROBES) {
      expect(await invoke('echo', { n: 2 }), what).toMatchObject({ status: 'succeeded' });
      const r = await invoke('raw', { hex });
      expect(r.status, what).toBe('failed');
      expect(r.status_reason, what).toMatch(/^the app process sent an invalid message and was stopped/);
      expect(r.status_reason, what).toMatch(reason);
      expect(await e.healthy()).toBe(true);
    }
    await othersCarryOn();
  });
});
