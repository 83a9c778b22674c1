/**
 * Control plane (main → engine with undici): JSON calls with the key kept in main, the Error
 * object on failures, paths that would leave the API refused, SSE frames forwarded and the
 * stream closed on dispose, and the audit export downloaded chunk by chunk.
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

let te: TestEngine;
let cp: ControlPlane;
let dir: string;

beforeAll(async () => {
  te = await startTestEngine();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-cp-'));
  let n = 0;
  cp = new ControlPlane({ target: async () => ({ id: 'local', url: te.url, apiKey: te.adminKey }), chooseSavePath: async (name) => path.join(dir, `${n++}-${name}`) });
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
      for (let token: string | undefined; ; ) {
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
    const lines = (await fs.readFile(r.location!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { path: string });
    expect(lines.map((l) => l.path).sort()).toEqual(((await listAll()) as Array<{ path: string }>).map((l) => l.path).sort());
    expect(r.bytes).toBe((await fs.stat(r.location!)).size);
  });
});
