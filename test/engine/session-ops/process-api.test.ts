/**
 * `/browsers/{id}/process/*` through the official client against real sessions: exec (output,
 * exit codes, env, cwd, timeout), spawn with stdin/stdout streaming (late subscribers get the
 * history), status from /proc, kill with each allowed signal and 400 for others, 404 for
 * unknown process ids, a PTY attached over WebSocket running `echo` in a shell, the bwrap
 * sandbox (no access to another session's files or the engine's data dir), JWT access via
 * base_url, and every process dying with its session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fsp from 'node:fs/promises';
import path from 'node:path';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let te: TestEngine;
let id: string;
let other: string;
let baseUrl: string;
let jwt: string;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s?: string) => Buffer.from(s ?? '', 'base64').toString();
const rootOf = (sid: string) => (te.engine.services.sessions as { get(id: string): { dirs: { root: string } } }).get(sid).dirs.root;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

beforeAll(async () => {
  te = await startTestEngine();
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  baseUrl = s.base_url!;
  jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
  other = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
});
afterAll(() => te?.stop());

describe('session processes', () => {
  it('execs commands with output, exit code, env and cwd inside the session fs', async () => {
    const r = await te.client.browsers.process.exec(id, { command: 'sh', args: ['-c', 'echo out; echo err >&2; exit 3'] });
    expect(r).toMatchObject({ exit_code: 3 });
    expect(text(r.stdout_b64)).toBe('out\n');
    expect(text(r.stderr_b64)).toBe('err\n');
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    await te.client.browsers.fs.writeFile(id, 'from fs', { path: '/work/hello.txt' });
    const cat = await te.client.browsers.process.exec(id, { command: 'cat', args: ['hello.txt'], cwd: '/work', env: { GREETING: 'hi' } });
    expect(text(cat.stdout_b64)).toBe('from fs');
    const env = await te.client.browsers.process.exec(id, { command: 'sh', args: ['-c', 'echo $GREETING; pwd'], cwd: '/work', env: { GREETING: 'hi' } });
    expect(text(env.stdout_b64)).toBe('hi\n/work\n');
    // What a process writes is in the session filesystem.
    await te.client.browsers.process.exec(id, { command: 'sh', args: ['-c', 'echo made > /work/made.txt'] });
    expect(await (await te.client.browsers.fs.readFile(id, { path: '/work/made.txt' })).text()).toBe('made\n');
    // The engine's own environment (secrets) is not inherited.
    const penv = await te.client.browsers.process.exec(id, { command: 'env' });
    expect(text(penv.stdout_b64)).not.toMatch(/BROWSERDECK|KERNEL_API_KEY|DATABASE_URL/);
  });

  it('kills an exec at timeout_sec and reports it', async () => {
    const r = await te.client.browsers.process.exec(id, { command: 'sleep', args: ['30'], timeout_sec: 1 });
    expect(r.exit_code).not.toBe(0);
    expect((r as { timed_out?: boolean }).timed_out).toBe(true);
  });

  it('refuses bad exec input with 4xx', async () => {
    const p = te.client.browsers.process;
    expect(await status(p.exec(id, { command: '' }))).toBe(400);
    expect(await status(p.exec(id, { command: 'ls', cwd: 'relative' }))).toBe(400);
    expect(await status(p.exec(id, { command: 'ls', cwd: '/../..' }))).toBe(400);
    expect(await status(p.exec(id, { command: 'ls', cwd: '/no/such/dir' }))).toBe(400);
    expect(await status(p.exec(id, { command: 'ls', env: { 'BAD-NAME': 'x' } }))).toBe(400);
    expect(await status(p.exec(id, { command: 'ls', as_root: true }))).toBe(422);
    expect(await status(p.exec(id, { command: 'ls', as_user: 'nobody' }))).toBe(422);
    expect(await status(p.exec(id, { command: 'ls', timeout_sec: -1 }))).toBe(400);
    const missing = await p.exec(id, { command: 'no-such-command-xyz' });
    expect(missing.exit_code).not.toBe(0);
  });

  it('answers an argument list or environment too long to exec with 400 argument_list_too_long, never 500', async () => {
    const p = te.client.browsers.process;
    const errorOf = async (call: Promise<unknown>) => {
      try {
        await call;
        return { status: 200, error: undefined };
      } catch (err) {
        return err as { status?: number; error?: { code?: string; message?: string; details?: unknown[] } };
      }
    };
    const huge = 'a'.repeat(140 * 1024); // over the kernel's 128 KiB per string: spawn fails with E2BIG
    for (const call of [
      () => p.exec(id, { command: 'echo', args: [huge] }),
      () => p.exec(id, { command: huge }),
      () => p.exec(id, { command: 'env', env: { BIG: huge } }),
      () => p.exec(id, { command: 'echo', args: Array.from({ length: 20 }, () => 'b'.repeat(100 * 1024)) }), // 2 MiB in total
      () => p.spawn(id, { command: 'echo', args: [huge] }),
      () => p.spawn(id, { command: 'echo', args: [huge], allocate_tty: true }),
    ]) {
      const e = await errorOf(call());
      expect(e.status).toBe(400);
      expect(e.error).toMatchObject({
        code: 'argument_list_too_long',
        message: expect.any(String),
        details: [expect.objectContaining({ code: 'invalid_field' })],
      });
    }
    // Just under the per-string limit still runs.
    const fits = await p.exec(id, { command: 'sh', args: ['-c', 'printf %s "$1" | wc -c', 'sh', 'c'.repeat(100 * 1024)] });
    expect(text(fits.stdout_b64).trim()).toBe(String(100 * 1024));
    // A command name too long for a path is the client's error too (or a failed exit), not a 5xx.
    const longName = await errorOf(p.exec(id, { command: 'x'.repeat(5000) }));
    expect(longName.status).toBeLessThan(500);
  });

  it('spawns, streams stdout (with history for late subscribers), takes stdin, reports status', async () => {
    const p = te.client.browsers.process;
    const sp = await p.spawn(id, { command: 'sh', args: ['-c', 'echo ready; while read line; do echo "got:$line"; echo "e:$line" >&2; done; exit 7'] });
    expect(sp.process_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sp.pid).toBeGreaterThan(0);
    expect(Date.parse(sp.started_at!)).toBeGreaterThan(0);
    const st = await p.status(sp.process_id!, { id });
    expect(st.state).toBe('running');
    expect(st.exit_code ?? null).toBeNull();
    expect(st.mem_bytes).toBeGreaterThan(0);
    expect(typeof st.cpu_pct).toBe('number');
    // Subscribe only after the first line was printed: it must still arrive.
    await new Promise((r) => setTimeout(r, 200));
    const stream = await p.stdoutStream(sp.process_id!, { id });
    const events: Array<{ stream?: string; data_b64?: string; event?: string; exit_code?: number }> = [];
    const done = (async () => {
      for await (const e of stream) events.push(e);
    })();
    expect((await p.stdin(sp.process_id!, { id, data_b64: b64('one\n') })).written_bytes).toBe(4);
    await p.stdin(sp.process_id!, { id, data_b64: b64('two\n') });
    const out = () =>
      events
        .filter((e) => e.stream === 'stdout')
        .map((e) => text(e.data_b64))
        .join('');
    while (!out().includes('got:two')) await new Promise((r) => setTimeout(r, 20));
    await p.kill(sp.process_id!, { id, signal: 'HUP' });
    await done; // the stream ends after the exit event
    expect(out()).toBe('ready\ngot:one\ngot:two\n');
    expect(
      events
        .filter((e) => e.stream === 'stderr')
        .map((e) => text(e.data_b64))
        .join(''),
    ).toBe('e:one\ne:two\n');
    const exit = events[events.length - 1];
    expect(exit.event).toBe('exit');
    expect(exit.exit_code).toBe(128 + 1);
    const after = await p.status(sp.process_id!, { id });
    expect(after).toMatchObject({ state: 'exited', exit_code: 129 });
    expect(await status(p.stdin(sp.process_id!, { id, data_b64: b64('x') }))).toBe(409);
    // A stream opened after the exit replays the output and the exit.
    const late: unknown[] = [];
    for await (const e of await p.stdoutStream(sp.process_id!, { id })) late.push(e);
    expect(late[late.length - 1]).toEqual({ event: 'exit', exit_code: 129 });
  });

  it('delivers each allowed signal to the command, refuses others, 404s unknown ids', async () => {
    const p = te.client.browsers.process;
    for (const [signal, code] of [
      ['TERM', 143],
      ['INT', 130],
      ['KILL', 137],
    ] as const) {
      const sp = await p.spawn(id, { command: 'sleep', args: ['60'] });
      expect((await p.kill(sp.process_id!, { id, signal })).ok).toBe(true);
      let st = await p.status(sp.process_id!, { id });
      while (st.state === 'running') st = await p.status(sp.process_id!, { id });
      expect(st.exit_code, signal).toBe(code);
    }
    const sp = await p.spawn(id, { command: 'sleep', args: ['60'] });
    for (const signal of ['STOP', 'SIGTERM', 'term', '9', '']) expect(await status(p.kill(sp.process_id!, { id, signal: signal as 'TERM' })), signal).toBe(400);
    expect(await status(p.resize(sp.process_id!, { id, cols: 100, rows: 30 }))).toBe(400); // not a PTY
    await p.kill(sp.process_id!, { id, signal: 'KILL' });
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await status(p.status(unknown, { id }))).toBe(404);
    expect(await status(p.kill(unknown, { id, signal: 'TERM' }))).toBe(404);
    expect(await status(p.stdin(unknown, { id, data_b64: b64('x') }))).toBe(404);
    expect(await status(p.stdoutStream(unknown, { id }))).toBe(404);
    expect(await status(p.resize(unknown, { id, cols: 80, rows: 24 }))).toBe(404);
    // Another session's process id is unknown here.
    expect(await status(p.status(sp.process_id!, { id: other }))).toBe(404);
  });

  it('runs a PTY, resizes it, and attaches over WebSocket (echo in a shell)', async () => {
    const p = te.client.browsers.process;
    const sp = await p.spawn(id, { command: 'bash', args: ['--norc', '--noprofile', '-i'], allocate_tty: true, cols: 100, rows: 30, env: { PS1: '$ ' } });
    expect((await p.resize(sp.process_id!, { id, cols: 120, rows: 40 })).ok).toBe(true);
    expect(await status(p.resize(sp.process_id!, { id, cols: 0, rows: 40 }))).toBe(400);
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/process/${sp.process_id}/attach?jwt=${jwt}`);
    let out = '';
    let exitMsg: { event?: string; exit_code?: number } | undefined;
    ws.on('message', (data, isBinary) => {
      if (isBinary) out += data.toString();
      else exitMsg = JSON.parse(data.toString());
    });
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    ws.send(Buffer.from('stty size; echo "hello $((6*7))"\r'));
    while (!out.includes('hello 42')) await new Promise((r) => setTimeout(r, 20));
    expect(out).toContain('40 120');
    ws.send(JSON.stringify({ type: 'resize', cols: 90, rows: 20 }));
    ws.send(JSON.stringify({ type: 'input', data: 'stty size\r' }));
    while (!out.includes('20 90')) await new Promise((r) => setTimeout(r, 20));
    ws.send(Buffer.from('exit 5\r'));
    expect(await closed).toBe(1000);
    expect(exitMsg).toEqual({ event: 'exit', exit_code: 5 });
    // Refused before the upgrade: unknown process, bad token.
    for (const url of [
      `${baseUrl.replace(/^http/, 'ws')}/process/00000000-0000-4000-8000-000000000000/attach?jwt=${jwt}`,
      `${baseUrl.replace(/^http/, 'ws')}/process/${sp.process_id}/attach?jwt=nope`,
    ]) {
      const bad = new WebSocket(url);
      const code = await new Promise<number>((r) => bad.on('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
      expect([401, 404]).toContain(code);
    }
  });

  it('works with the session JWT on base_url', async () => {
    const res = await fetch(`${baseUrl}/process/exec?jwt=${jwt}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'echo', args: ['jwt'] }),
    });
    expect(res.status).toBe(200);
    expect(text((await res.json()).stdout_b64)).toBe('jwt\n');
  });

  it('sandboxes processes: no access to other sessions or the engine data dir', async () => {
    const p = te.client.browsers.process;
    const bwrap = await fsp.access('/usr/bin/bwrap').then(
      () => true,
      () => false,
    );
    if (!bwrap) return; // without bwrap isolation is cwd-only (documented)
    await te.client.browsers.fs.writeFile(other, 'other secret', { path: '/secret.txt' });
    const otherHost = path.join(rootOf(other), 'secret.txt');
    const r1 = await p.exec(id, { command: 'cat', args: [otherHost] });
    expect(r1.exit_code).not.toBe(0);
    expect(text(r1.stdout_b64)).not.toContain('other secret');
    const r2 = await p.exec(id, { command: 'cat', args: [path.join(te.dataDir, 'admin-api-key')] });
    expect(r2.exit_code).not.toBe(0);
    expect(text(r2.stdout_b64)).not.toContain('bdk_');
    const r3 = await p.exec(id, { command: 'sh', args: ['-c', 'ls /; cat /etc/shadow'] });
    expect(text(r3.stdout_b64).split('\n')).toEqual(expect.arrayContaining(['usr', 'work', 'downloads']));
    expect(text(r3.stdout_b64)).not.toMatch(/root:/);
    // A symlink a process plants to a host path means that path inside the session, for the
    // fs API as for the process itself: not the host file.
    await p.exec(id, { command: 'ln', args: ['-s', path.join(te.dataDir, 'admin-api-key'), '/work/key'] });
    expect(await status(te.client.browsers.fs.readFile(id, { path: '/work/key' }))).toBe(404);
  });

  it('kills every process of a session when the session is deleted', async () => {
    const s = await te.client.browsers.create({ headless: true });
    const p = te.client.browsers.process;
    const a = await p.spawn(s.session_id, { command: 'sleep', args: ['300'] });
    const b = await p.spawn(s.session_id, { command: 'sh', args: ['-c', 'sleep 300 & sleep 300'], allocate_tty: true });
    expect(alive(a.pid!)).toBe(true);
    expect(alive(b.pid!)).toBe(true);
    await te.client.browsers.deleteByID(s.session_id);
    // DELETE answers once the session has ended; the teardown (processes included) runs behind it.
    const cp = await import('node:child_process');
    const left = () =>
      cp
        .execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(s.session_id));
    for (let i = 0; i < 300 && (alive(a.pid!) || alive(b.pid!) || left().length); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(a.pid!)).toBe(false);
    expect(alive(b.pid!)).toBe(false);
    expect(left()).toEqual([]);
  });
});
