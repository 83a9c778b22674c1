/**
 * A session jail's end does not wait on its egress socket's peers: the jail's front socket hands
 * each connection to a forwarder, which owns it. When `close()` waited for the front's
 * connections before closing the direct forwarder, a peer that never closed its end (a helper
 * the kill had not reached, a tunnel paused behind a stalled upstream) held the session's end,
 * and with it the engine's stop, forever.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionJail } from '../../../src/engine/runtime/sandbox/session-jail.js';
import { egressPolicyOf } from '../../../src/engine/runtime/proxy-forwarder/egress-policy.js';

let dir: string | undefined;
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('SessionJail.close', () => {
  it('ends while a peer still holds a connection to the egress socket, and ends that connection', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-jail-close-'));
    const dirs = { root: path.join(dir, 'root'), userData: path.join(dir, 'user-data'), tmp: path.join(dir, 'tmp') };
    for (const d of Object.values(dirs)) await fs.mkdir(d, { recursive: true });
    // Nothing is launched: prepare makes the sockets and the direct forwarder, close ends them.
    const jail = new SessionJail({ bwrap: 'bwrap', hide: [], policy: egressPolicyOf([]) }, dir, dirs, () => {});
    await jail.prepare();
    const peer = net.connect(path.join(dir, 'egress.sock'));
    await new Promise((resolve, reject) => peer.once('connect', resolve).once('error', reject));
    // A request whose headers never end: the forwarder waits for the rest, the peer never closes.
    peer.write('GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1');
    const peerClosed = new Promise((resolve) => peer.once('close', resolve));
    await jail.close();
    await peerClosed;
    expect(peer.destroyed).toBe(true);
  });
});
