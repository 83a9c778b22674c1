/**
 * Control plane (main → engine with undici): JSON calls with the key kept in main, the Error
 * object on failures, paths that would leave the API refused, SSE frames forwarded and the
 * stream closed on dispose, the audit export downloaded chunk by chunk, and binary calls
 * (multipart upload into a real session, file bytes with a read limit, a screenshot).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiCallError, ControlPlane, targetUrl } from '../../src/main/control-plane.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { waitFor } from '../helpers/chromium-web.js';
import { MAX_BINARY_BYTES } from '../../src/shared/ipc/contract.js';

let te: TestEngine;
let cp: ControlPlane;
let dir: string;

beforeAll(async () => {
  te = await startTestEngine();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-cp-'));
  let n = 0;
  cp = new ControlPlane({
    target: async () => ({ id: 'local', url: te.url, apiKey: te.adminKey }),
    chooseSavePath: async (name) => path.join(dir, `${n++}-${name}`),
  });
});
afterAll(async () => {
  await te?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('control plane', () => {
  it('answers JSON with the pagination headers and sends the project header', async () => {
    const p = await cp.request({ method: 'POST', path: '/org/projects', body: { name: 'cp-proj' } });
    expect(p.status).toBe(200);
    const list = await cp.request({ method: 'GET', path: '/org/projects', query: { limit: 1 } });
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.headers['x-has-more']).toBe('true');
    expect(list.headers['x-next-offset']).toBe('1');
    expect(Object.keys(list.headers)).not.toContain('set-cookie');
    const missing = cp.request({ method: 'GET', path: '/browsers', projectId: 'no-such-project' });
    await expect(missing).rejects.toBeInstanceOf(ApiCallError);
    await expect(missing).rejects.toMatchObject({ error: { status: 404, code: 'project_not_found' } });
  });

  it('returns the Error object of a failed call', async () => {
    const err = await cp.request({ method: 'POST', path: '/org/projects', body: { name: '' } }).catch((e: ApiCallError) => e);
    expect(err).toBeInstanceOf(ApiCallError);
    expect((err as ApiCallError).error).toMatchObject({ name: 'ApiError', status: 400 });
    expect((err as ApiCallError).error.message).toMatch(/name/);
  });

  it('refuses paths that leave the API base', () => {
    expect(() => targetUrl('http://h:1', '/org/../admin')).toThrow(/invalid API path/);
    expect(() => targetUrl('http://h:1', '/org/%2e%2e/x')).toThrow(/invalid API path/);
    expect(() => targetUrl('http://h:1', '/a%2Fb')).toThrow(/invalid API path/);
    expect(targetUrl('http://h:1/base/', '/org/projects', { a: 'x y', b: ['1', '2'] })).toBe('http://h:1/base/org/projects?a=x%20y&b=1%2C2');
  });

  it('reports an unreachable server as a ConnectionError', async () => {
    const dead = new ControlPlane({ target: async () => ({ id: 'x', url: 'http://127.0.0.1:1', apiKey: 'k' }) });
    await expect(dead.request({ method: 'GET', path: '/org/projects' })).rejects.toMatchObject({ error: { name: 'ConnectionError' } });
  });

  it('forwards SSE frames and closes the upstream request on dispose', async () => {
    let closed = false;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
      res.write(`data: ${JSON.stringify({ n: 1, auth: req.headers.authorization })}\n\n`);
      res.write('id: 2\ndata: {"n":2}\n\n');
      req.on('close', () => (closed = true));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sse = new ControlPlane({ target: async () => ({ id: 'x', url, apiKey: 'bdk_sse' }) });
    const frames: unknown[] = [];
    let ended = false;
    const sub = sse.stream({ path: '/events' }, { frame: (d) => frames.push(d), end: () => (ended = true) });
    await waitFor(() => frames.length === 2, 10_000, 'two frames');
    expect(frames).toEqual([{ n: 1, auth: 'Bearer bdk_sse' }, { n: 2 }]);
    sub.dispose();
    expect(ended).toBe(true);
    await waitFor(() => closed, 10_000, 'upstream close');
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('downloads every audit export chunk into one file', async () => {
    for (let i = 0; i < 5; i++) await te.api(`/org/projects?limit=1&offset=${i}`);
    const start = new Date(Date.now() - 3600_000).toISOString();
    const end = new Date(Date.now() + 3600_000).toISOString();
    const query = { start, end, search: 'offset=' };
    const listAll = async (): Promise<unknown[]> => {
      const listed: unknown[] = [];
      for (let token: string | undefined; ;) {
        const page = await cp.request({ method: 'GET', path: '/audit-logs', query: { ...query, limit: 100, ...(token ? { page_token: token } : {}) } });
        listed.push(...(page.body as unknown[]));
        token = page.headers['x-next-page-token'];
        if (!token || page.headers['x-has-more'] === 'false' || !(page.body as unknown[]).length) break;
      }
      return listed;
    };
    // Audit records are written after the response; wait until all five are searchable.
    await waitFor(async () => (await listAll()).length >= 5, 10_000, 'five audit entries');
    const r = await cp.download({ path: '/audit-logs/export/chunk', query: { ...query, format: 'jsonl', limit: 2 }, filename: 'audit.jsonl', cursor: true });
    expect(r.saved).toBe(true);
    expect(r.chunks).toBe(3);
    const lines = (await fs.readFile(r.location!, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string });
    expect(lines.map((l) => l.path).sort()).toEqual(((await listAll()) as Array<{ path: string }>).map((l) => l.path).sort());
    expect(r.bytes).toBe((await fs.stat(r.location!)).size);
  });

  it('uploads multipart files into a session and reads bytes back, whole or cut at maxBytes', async () => {
    const s = (await cp.request({ method: 'POST', path: '/browsers', body: { headless: true, timeout_seconds: 120 } })).body as { session_id: string };
    try {
      const bin = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
      const up = await cp.binary({
        method: 'POST',
        path: `/browsers/${s.session_id}/fs/upload`,
        multipart: [
          { name: 'files[0][dest_path]', value: '/tmp/up/notes.txt' },
          { name: 'files[0][file]', filename: 'notes.txt', contentType: 'text/plain', data: new TextEncoder().encode('über notes\n') },
          { name: 'files[1][dest_path]', value: '/tmp/up/blob.bin' },
          { name: 'files[1][file]', filename: 'blob.bin', data: bin },
        ],
      });
      expect(up.status).toBe(204);
      const text = await cp.binary({ method: 'GET', path: `/browsers/${s.session_id}/fs/read_file`, query: { path: '/tmp/up/notes.txt' } });
      expect(new TextDecoder().decode(text.data)).toBe('über notes\n');
      expect(text.truncated).toBe(false);
      const whole = await cp.binary({ method: 'GET', path: `/browsers/${s.session_id}/fs/read_file`, query: { path: '/tmp/up/blob.bin' } });
      expect(Buffer.from(whole.data).equals(Buffer.from(bin))).toBe(true);
      const cut = await cp.binary({ method: 'GET', path: `/browsers/${s.session_id}/fs/read_file`, query: { path: '/tmp/up/blob.bin' }, maxBytes: 1000 });
      expect(cut.truncated).toBe(true);
      expect(Buffer.from(cut.data).equals(Buffer.from(bin.subarray(0, 1000)))).toBe(true);

      const shot = await cp.binary({ method: 'POST', path: `/browsers/${s.session_id}/computer/screenshot`, json: {} });
      expect(shot.headers['content-type']).toMatch(/image\/png/);
      expect(Buffer.from(shot.data.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');

      const escape = cp.binary({ method: 'GET', path: `/browsers/${s.session_id}/fs/read_file`, query: { path: '/../../etc/passwd' } });
      await expect(escape).rejects.toMatchObject({ error: { status: expect.any(Number), message: expect.any(String) } });
      await expect(
        cp.binary({ method: 'POST', path: `/browsers/${s.session_id}/fs/upload`, json: {}, multipart: [{ name: 'a', value: 'b' }] }),
      ).rejects.toMatchObject({ error: { name: 'ValidationError' } });
    } finally {
      await cp.request({ method: 'DELETE', path: `/browsers/${s.session_id}` });
    }
  });

  it('refuses an answer larger than one IPC message instead of cutting it silently', async () => {
    const chunk = Buffer.alloc(1 << 20);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const pump = (): void => {
        while (sent <= MAX_BINARY_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const big = new ControlPlane({ target: async () => ({ id: 'x', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' }) });
    await expect(big.binary({ method: 'GET', path: '/big' })).rejects.toMatchObject({ error: { name: 'ResponseTooLarge' } });
    const head = await big.binary({ method: 'GET', path: '/big', maxBytes: 10 });
    expect(head).toMatchObject({ truncated: true });
    expect(head.data.length).toBe(10);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
