/**
 * A TLS-intercepting (MITM) HTTP proxy for tests, as corporate inspection proxies work: it
 * answers CONNECT itself, terminates the browser's TLS with a leaf certificate minted for the
 * requested host by its own test CA (openssl CLI), and forwards the decrypted requests to the
 * real site over a new TLS connection. It records what it forwarded. `mintLeaf` also serves the
 * HTTPS origin the tests talk to (a cert signed by the same CA).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface TestCa {
  /** The CA certificate (PEM): what a proxy's `ca_bundle` carries. */
  certPem: string;
  /** A key and certificate for `host` (a name or IP), signed by this CA. */
  mintLeaf(host: string): { key: string; cert: string };
  dispose(): void;
}

export function createTestCa(name = 'Browserdeck MITM test CA'): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-ca-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30'].concat([
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
  );
  const leaves = new Map<string, { key: string; cert: string }>();
  let serial = 0;
  return {
    certPem: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
    mintLeaf(host) {
      const known = leaves.get(host);
      if (known) return known;
      const n = ++serial;
      const san = net.isIP(host) ? `IP:${host}` : `DNS:${host}`;
      fs.writeFileSync(
        path.join(dir, `leaf${n}.ext`),
        `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
      );
      run([
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `leaf${n}.key`,
        '-out',
        `leaf${n}.csr`,
        '-subj',
        `/CN=${host}`,
      ]);
      run(
        [
          'x509',
          '-req',
          '-in',
          `leaf${n}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(1000 + n),
          '-days',
          '20',
          '-out',
          `leaf${n}.pem`,
        ].concat(['-extfile', `leaf${n}.ext`]),
      );
      const leaf = { key: fs.readFileSync(path.join(dir, `leaf${n}.key`), 'utf8'), cert: fs.readFileSync(path.join(dir, `leaf${n}.pem`), 'utf8') };
      leaves.set(host, leaf);
      return leaf;
    },
    dispose() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface MitmProxy {
  port: number;
  /** `https://host:port/path` of every request it decrypted and forwarded. */
  forwarded: string[];
  /** CONNECT targets it intercepted. */
  tunnels: string[];
  close(): Promise<void>;
}

/** `upstreamCa`: what the proxy trusts for the real sites (the test origin's CA). */
export async function startMitmProxy(ca: TestCa, upstreamCa: string): Promise<MitmProxy> {
  const forwarded: string[] = [];
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  server.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (!m) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const [, host, port] = m;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secure = new tls.TLSSocket(client, { isServer: true, ...ca.mintLeaf(host) });
    track(secure);
    secure.on('error', () => client.destroy());
    // The decrypted stream is plain HTTP/1.1: a private server parses it and forwards each request.
    const inner = http.createServer((r, res) => {
      forwarded.push(`https://${target}${r.url}`);
      const up = https.request({
        host,
        port: Number(port),
        method: r.method,
        path: r.url,
        headers: r.headers,
        ca: upstreamCa,
        servername: net.isIP(host) ? undefined : host,
      });
      up.on('response', (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', (err) => res.writeHead(502).end(`mitm: ${err.message}`));
      r.pipe(up);
    });
    inner.emit('connection', secure);
  });
  server.on('connection', track);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    forwarded,
    tunnels,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTPS origin on 127.0.0.1 with a certificate of `ca`, answering a marker page. */
export async function startTlsOrigin(ca: TestCa): Promise<{ url: string; port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = https.createServer(ca.mintLeaf('127.0.0.1'), (req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>tls origin ${req.url}</title>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
