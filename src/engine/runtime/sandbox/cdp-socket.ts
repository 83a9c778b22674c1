/**
 * The one way a sandbox reaches a browser: a per-session Unix socket that the engine listens
 * on and bind-mounts into that session's sandboxes only. Every connection is piped to the
 * DevTools endpoint (loopback port, or the jail's Unix socket) of the session's *current* Chromium (looked up per connection, so it
 * follows restarts after a crash). The socket lives in the session's private directory
 * (`<dataDir>/sessions/<id>/cdp.sock`, next to — not inside — the session filesystem root, so a
 * session process cannot replace it), or in a private `0700` temp dir when that path is too
 * long for a Unix socket. It is closed, with its connections, when the session ends.
 */
import { connectDevtools } from '../chromium/devtools-address.js';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SessionHandle } from '../session/session-handle.js';
import type { Slot } from '../session/session-scope.js';
import { own, recordedJailUser } from './jail-user.js';

/** sun_path holds 108 bytes on Linux (104 on macOS) including the NUL. */
const MAX_SOCKET_PATH = 100;

/** The session's socket once it listens or while it opens (opened anew after a failed open). */
class CdpSocketHolder {
  opening?: Promise<string>;
}

/** Where a session's socket is kept; the open hands its close to the session's scope. */
const CdpSocketSlot: Slot<CdpSocketHolder> = { name: 'cdp-socket', create: () => new CdpSocketHolder() };

/** The host path of the session's CDP socket, listening from the first call until the session ends. */
export async function sessionCdpSocket(handle: SessionHandle): Promise<string> {
  const holder = handle.scope.get(CdpSocketSlot);
  let p = holder.opening;
  if (!p) {
    const opening = open(handle);
    holder.opening = p = opening;
    opening.catch(() => holder.opening === opening && (holder.opening = undefined));
  }
  return p;
}

async function open(handle: SessionHandle): Promise<string> {
  if (handle.signal.aborted) throw new Error(`session ${handle.id} has ended`);
  let dir = path.dirname(handle.dirs.root);
  let ownDir = false;
  if (Buffer.byteLength(path.join(dir, 'cdp.sock')) > MAX_SOCKET_PATH) {
    dir = await fs.mkdtemp(path.join(os.tmpdir().length <= 48 ? os.tmpdir() : '/tmp', 'bd-cdp-'));
    ownDir = true;
  }
  const file = path.join(dir, 'cdp.sock');
  await fs.rm(file, { force: true });
  const conns = new Set<net.Socket>();
  const server = net.createServer((client) => {
    conns.add(client);
    // A process's CDP client is a client like any other: the session stays active and unfrozen while it is connected.
    const release = handle.holdActive();
    client.on('close', () => (conns.delete(client), release()));
    client.on('error', () => client.destroy());
    client.pause();
    handle
      .ready()
      .then(() => {
        if (client.destroyed) return;
        const upstream = connectDevtools(handle.browserCdpUrl());
        conns.add(upstream);
        upstream.on('close', () => (conns.delete(upstream), client.destroy()));
        upstream.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      })
      .catch(() => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  server.on('error', () => {});
  // Only the session's jails may connect: they run as the engine's user, or as the session's jail user (jail-user.ts).
  await fs.chmod(file, 0o600);
  const user = recordedJailUser(handle.dirs.root);
  await own(user, file);
  if (user && ownDir) await fs.chmod(dir, 0o711);
  handle.scope.defer('cdp socket', async () => {
    for (const c of conns) c.destroy();
    await new Promise((r) => server.close(r));
    await fs.rm(ownDir ? dir : file, { recursive: true, force: true });
  });
  return file;
}
