import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { attachment, installTenantBytesGuard, isPassedTargetHeader, sendAsFile, targetHeaders } from './tenant-bytes.js';

describe('target headers passed on by /curl/raw', () => {
  it('drops every header a browser acts on for the origin it is served from', () => {
    for (const name of [
      'Set-Cookie',
      'set-cookie2',
      'Clear-Site-Data',
      'Refresh',
      'Link',
      'Location',
      'Content-Location',
      'Service-Worker-Allowed',
      'Access-Control-Allow-Origin',
      'Access-Control-Allow-Credentials',
      'Strict-Transport-Security',
      'Content-Security-Policy',
      'Content-Security-Policy-Report-Only',
      'Report-To',
      'Reporting-Endpoints',
      'NEL',
      'Alt-Svc',
      'WWW-Authenticate',
      'Origin-Agent-Cluster',
      'Cross-Origin-Opener-Policy',
      'Cross-Origin-Embedder-Policy',
      'Permissions-Policy',
      'Accept-CH',
      'Set-Login',
      'Supports-Loading-Mode',
      'Speculation-Rules',
      'Sec-Session-Registration',
      'Some-Header-Browsers-Learn-Next-Year',
    ])
      expect(isPassedTargetHeader(name), name).toBe(false);
  });

  it('drops x- headers that are the engine own signals or that a reverse proxy obeys', () => {
    for (const name of [
      'X-Content-Type-Options',
      'x-should-retry',
      'X-Kernel-Proxy-Error',
      'x-browserdeck-net-error',
      'X-Accel-Redirect',
      'X-Sendfile',
      'X-Lighttpd-Send-File',
    ])
      expect(isPassedTargetHeader(name), name).toBe(false);
  });

  it('keeps what describes the body, and other x- headers', () => {
    for (const name of [
      'Content-Type',
      'content-disposition',
      'ETag',
      'Last-Modified',
      'Cache-Control',
      'Content-Range',
      'Retry-After',
      'x-multi',
      'X-Request-Id',
    ])
      expect(isPassedTargetHeader(name), name).toBe(true);
  });

  it('groups the kept ones by lowercase name, in order', () => {
    const out = targetHeaders([
      ['Content-Type', 'text/html'],
      ['Set-Cookie', 'a=1'],
      ['X-Multi', 'one'],
      ['set-cookie', 'b=2'],
      ['x-multi', 'two'],
      ['Content-Encoding', 'gzip'],
      ['Content-Length', '12'],
    ]);
    expect([...out]).toEqual([
      ['content-type', ['text/html']],
      ['x-multi', ['one', 'two']],
    ]);
  });
});

describe('attachment', () => {
  it('quotes a plain name', () => {
    expect(attachment('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  });
  it('never lets a name break out of the header', () => {
    const v = attachment('a"b\\c\r\nSet-Cookie: x=1;é.zip');
    expect(v).not.toMatch(/[\r\n]/);
    expect(v).toMatch(/^attachment; filename="a_b_c__Set-Cookie: x=1;_\.zip"; filename\*=UTF-8''/);
    expect(decodeURIComponent(v.split("UTF-8''")[1])).toBe('a"b\\c\r\nSet-Cookie: x=1;é.zip');
  });
});

describe('the guard hook', () => {
  async function app() {
    const a = Fastify();
    installTenantBytesGuard(a);
    a.get('/json', async () => ({ ok: true }));
    a.get('/html', async (_req, reply) => reply.type('text/html').header('content-security-policy', "script-src 'unsafe-inline'").send('<script>1</script>'));
    a.get('/file', async (_req, reply) => sendAsFile(reply, 'application/octet-stream', 'x.html').send('<script>1</script>'));
    a.get('/page', { config: { enginePage: true } }, async (_req, reply) =>
      reply.type('text/html').header('content-security-policy', "default-src 'none'").send('<p>engine</p>'),
    );
    a.get('/console', { config: { enginePage: true } }, async (_req, reply) => reply.type('text/html').send('<script src="/assets/app.js"></script>'));
    a.get('/page-error', { config: { enginePage: true } }, async (_req, reply) => reply.status(404).send({ code: 'not_found' }));
    return a;
  }

  it('answers sandbox and nosniff on every route, whatever CSP the handler set', async () => {
    const a = await app();
    for (const url of ['/json', '/html', '/file', '/no-such-route']) {
      const res = await a.inject({ url });
      expect(res.headers['content-security-policy'], url).toBe('sandbox');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const file = await a.inject({ url: '/file' });
    expect(file.headers['content-type']).toBe('application/octet-stream');
    expect(file.headers['content-disposition']).toMatch(/^attachment;/);
    await a.close();
  });

  it("leaves an engine page's own CSP alone", async () => {
    const a = await app();
    const res = await a.inject({ url: '/page' });
    expect(res.headers['content-security-policy']).toBe("default-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await a.inject({ url: '/page-error' })).headers['content-security-policy']).toBe('sandbox');
    // A page without a CSP of its own (the console) is not sandboxed.
    expect((await a.inject({ url: '/console' })).headers['content-security-policy']).toBeUndefined();
    await a.close();
  });
});
