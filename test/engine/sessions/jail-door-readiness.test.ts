/**
 * The readiness check of a jail's doors (LISTENING_FUNCTION, sandbox/jail-helper-launch.ts) on real sockets: a
 * socket file that exists but does not listen yet is not ready.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENING_FUNCTION, findSocat } from '../../../src/engine/runtime/sandbox/jail-helper-launch.js';

// The readiness check of the jail's doors, run by /bin/sh as the jail runs it (here in the host's
// network namespace, whose /proc/net files have the same format).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-doors-'));
let tcp: net.Server;
let want: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tcp = net.createServer();
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  want = `:${(tcp.address() as net.AddressInfo).port.toString(16).toUpperCase().padStart(4, '0')}`;
});

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  tcp.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const listening = (sock: string, wantPort = want) =>
  spawnSync('/bin/sh', ['-c', `${LISTENING_FUNCTION}\nlistening`], { env: { PATH: process.env.PATH, sock, want: wantPort } }).status;

async function untilExists(file: string): Promise<void> {
  for (let i = 0; i < 500 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('LISTENING_FUNCTION', () => {
  it('is true once the Unix socket listens and the TCP port is in LISTEN', async () => {
    const sock = path.join(dir, 'listening.sock');
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      expect(listening(sock)).toBe(0);
      // The TCP door alone decides too: a port nothing listens on is not ready.
      expect(listening(sock, ':0001')).toBe(1);
    } finally {
      server.close();
    }
  });

  it('is false for a socket file that exists but does not listen (bound, as between bind() and listen())', async () => {
    const socat = findSocat();
    expect(socat, 'socat is installed (the jail needs it)').toBeTruthy();
    const sock = path.join(dir, 'bound.sock');
    // A bound datagram socket: the file is a socket (`[ -S ]` holds) but nothing accepts connections.
    const c = spawn(socat!, ['-u', `UNIX-RECV:${sock}`, '/dev/null'], { stdio: 'ignore' });
    children.push(c);
    await untilExists(sock);
    expect(fs.statSync(sock).isSocket()).toBe(true);
    expect(listening(sock)).toBe(1);
    expect(listening(path.join(dir, 'missing.sock'))).toBe(1);
  });
});
