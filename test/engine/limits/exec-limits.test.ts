/**
 * Issue 25 row 5: process output and code calls cannot sink the engine's memory. An `exec`
 * keeps each stream's first `execLimits.outputMaxBytes` (scaled down to 1 MiB here) and says
 * so (`stdout_truncated`), with the exit code the command really ended with; below the cap the
 * output is whole and the flags false. Concurrent exec/execute calls are bounded per session
 * (2 here) and per engine (3): over a bound the call is 429 `concurrency_limit` naming the bound,
 * with a `system_limit_reached` event in the session's telemetry, while another session's exec runs.
 * A `stdout/stream` reader that does not read holds at most about the cap in the engine: the rest
 * is dropped and counted (`dropped_bytes`), and what arrived plus what was dropped is everything.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';

const CAP = 1024 * 1024;
let te: TestEngine;
let a: string;
let b: string;

interface ExecAnswer {
  exit_code: number;
  stdout_b64: string;
  stderr_b64: string;
  output_truncated?: boolean;
  stdout_truncated?: boolean;
  stderr_truncated?: boolean;
}

const decode = (s: string) => Buffer.from(s, 'base64');
const seqOutput = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join('\n') + '\n';

/** An exec call's answer: the ExecAnswer on 200, the Error object's fields otherwise (the tests assert which). */
async function exec(session: string, body: Record<string, unknown>): Promise<{ status: number; body: ExecAnswer & { code?: string; message?: string } }> {
  const res = await te.api(`/browsers/${session}/process/exec`, { method: 'POST', json: body });
  return { status: res.status, body: await res.json() };
}
/** A command that runs until `/tmp/<flag>` exists in its session (made through the fs API). */
const waitFor = (flag: string) => ({ command: 'sh', args: ['-c', `while [ ! -e /tmp/${flag} ]; do sleep 0.05; done; echo ${flag}`] });
const release = (session: string, flag: string) => te.client.browsers.fs.writeFile(session, 'go', { path: `/tmp/${flag}` });
const health = async () => (await (await fetch(`${te.url}/healthz`)).json()) as { limits: { exec: { in_use: number } } };
const inUse = (n: number) => pollUntil(`${n} exec/execute calls running`, health, (h) => h.limits.exec.in_use === n);

beforeAll(async () => {
  te = await startTestEngine({ execLimits: { perSession: 2, perEngine: 3, outputMaxBytes: CAP } });
  a = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  b = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
});
afterAll(() => te?.stop());

describe('exec output', () => {
  it('answers exactly the first cap bytes of a longer output, flagged, with the real exit code', async () => {
    // ~1.6 MB on stdout, then a line on stderr and exit 7: the command ran on past the cap.
    const r = await exec(a, { command: 'sh', args: ['-c', 'seq 1 250000; echo after >&2; exit 7'] });
    expect(r.status).toBe(200);
    const body: ExecAnswer = r.body;
    const stdout = decode(body.stdout_b64);
    expect(stdout.length).toBe(CAP);
    expect(stdout.equals(Buffer.from(seqOutput(250000)).subarray(0, CAP))).toBe(true);
    expect(body).toMatchObject({ exit_code: 7, stdout_truncated: true, stderr_truncated: false, output_truncated: true });
    expect(decode(body.stderr_b64).toString()).toBe('after\n');
  });

  it('keeps far more output than the cap from filling the engine: 16 MiB answers the cap', async () => {
    const r = await exec(a, { command: 'sh', args: ['-c', 'head -c 16777216 /dev/zero; exit 0'] });
    expect(r.body).toMatchObject({ exit_code: 0, stdout_truncated: true });
    expect(decode(r.body.stdout_b64).length).toBe(CAP);
  });

  it('control: output under the cap is whole and not flagged', async () => {
    const r = await exec(a, { command: 'sh', args: ['-c', 'seq 1 100000; echo err >&2'] });
    const body: ExecAnswer = r.body;
    expect(decode(body.stdout_b64).toString()).toBe(seqOutput(100000));
    expect(decode(body.stderr_b64).toString()).toBe('err\n');
    expect(body).toMatchObject({ exit_code: 0, stdout_truncated: false, stderr_truncated: false });
    expect(body.output_truncated).toBeUndefined();
  });
});

describe('concurrent exec/execute calls', () => {
  it('refuses a third call of a session with 429 while another session execs, and frees the slots', async () => {
    await inUse(0);
    const running = [exec(a, waitFor('go1')), exec(a, waitFor('go1'))];
    await inUse(2);
    const refused = await exec(a, { command: 'true' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'concurrency_limit' });
    expect(refused.body.message).toContain('--exec-per-session 2');
    // Playwright execute shares the session's budget.
    const code = await te.api(`/browsers/${a}/playwright/execute`, { method: 'POST', json: { code: 'return 1' } });
    expect(code.status).toBe(429);
    expect(await code.json()).toMatchObject({ code: 'concurrency_limit' });
    // Another session carries on meanwhile.
    const other = await exec(b, { command: 'sh', args: ['-c', 'echo other'] });
    expect(other.status).toBe(200);
    expect(decode(other.body.stdout_b64).toString()).toBe('other\n');
    // The session's telemetry says why.
    const events = await pollUntil(
      'a system_limit_reached event',
      async () =>
        (await (await te.api(`/browsers/${a}/telemetry/events?since=30m&category=system`)).json()) as Array<{ event: { type: string; data?: object } }>,
      (list) => list.some((e) => e.event.type === 'system_limit_reached'),
    );
    expect(events.find((e) => e.event.type === 'system_limit_reached')!.event.data).toEqual({ resource: 'exec_calls', scope: 'session', limit: 2 });
    await release(a, 'go1');
    for (const r of await Promise.all(running)) expect(r.body).toMatchObject({ exit_code: 0 });
    await inUse(0);
    // Finished calls gave their slots back.
    expect((await exec(a, { command: 'true' })).status).toBe(200);
  });

  it("refuses any session's call over the engine's bound", async () => {
    await inUse(0);
    const running = [exec(a, waitFor('go2')), exec(a, waitFor('go2')), exec(b, waitFor('go2'))];
    await inUse(3);
    const refused = await exec(b, { command: 'true' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'concurrency_limit' });
    expect(refused.body.message).toContain('--exec-per-engine 3');
    await release(a, 'go2');
    await release(b, 'go2');
    await Promise.all(running);
    await inUse(0);
    expect((await exec(b, { command: 'true' })).status).toBe(200);
  });
});

describe('a slow stdout/stream reader', () => {
  it('gets output up to the backlog, then dropped_bytes for the rest: the engine queues no more', async () => {
    const TOTAL = 64 * 1024 * 1024;
    const spawned = await te.client.browsers.process.spawn(a, {
      command: 'sh',
      args: ['-c', `while [ ! -e /tmp/go-sse ]; do sleep 0.05; done; head -c ${TOTAL} /dev/zero`],
    });
    const pid = spawned.process_id!;
    // Subscribed before the first byte, then not read while the process writes everything.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${te.url}/browsers/${a}/process/${pid}/stdout/stream`, { headers: { authorization: `Bearer ${te.adminKey}` } }, resolve).on('error', reject),
    );
    res.pause();
    await release(a, 'go-sse');
    await pollUntil(
      'the writer to exit',
      () => te.client.browsers.process.status(pid, { id: a }),
      (st) => st.state === 'exited',
    );
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => (text += d));
    const ended = new Promise((r) => res.once('end', r));
    res.resume();
    await ended;
    const frames = text
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice(6)) as { data_b64?: string; dropped_bytes?: number; event?: string; exit_code?: number });
    const received = frames.reduce((n, f) => n + (f.data_b64 ? Buffer.from(f.data_b64, 'base64').length : 0), 0);
    const dropped = frames.reduce((n, f) => n + (f.dropped_bytes ?? 0), 0);
    expect(frames.at(-1)).toMatchObject({ event: 'exit', exit_code: 0 });
    expect(dropped).toBeGreaterThan(0);
    expect(received + dropped).toBe(TOTAL);
  });
});
