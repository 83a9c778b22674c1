/**
 * One image build at a time on this machine: `npm run image`, `npm run image:postgres` and the
 * build `npm test` starts in the background (scripts/bootstrap/image-prebuild.mjs) share podman's
 * storage, and two builds of the same Containerfile at once would both run its Debian layer
 * (minutes of CPU) instead of the second reusing the first's. A build that finds the lock taken
 * waits for it, then finds the layers cached.
 *
 * The lock is a Unix socket in Linux's abstract namespace (the images build on Linux only): the
 * kernel frees it when its process ends, however it ends, so a killed build never leaves a stale
 * lock behind. Whoever asks while it is held is told the holder's pid and what it builds.
 * BROWSERDECK_IMAGE_BUILD_LOCK names another lock (the lock's own test, beside a real build).
 */
import net from 'node:net';
import { say } from './log.mjs';

const lockName = () => `\0${process.env.BROWSERDECK_IMAGE_BUILD_LOCK || 'browserdeck-image-build'}`;
const RETRY_MS = 1000;

/** Holds the lock until this process exits (no release: the builds are scripts of their own). */
export async function holdImageBuildLock(what) {
  let told = false;
  for (;;) {
    const server = await tryListen(what);
    if (server) return;
    if (!told) {
      told = true;
      say(`waiting for the image build in progress (${(await holder()) || 'its holder did not say'})`);
    }
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/** A listening server holding the name, or null while another process holds it. */
function tryListen(what) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.end(`pid ${process.pid}: ${what}`));
    server.once('error', (err) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen({ path: lockName() }, () => {
      // Never keeps the build script alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

/** What the holder says about itself ('' when it does not answer). */
function holder() {
  return new Promise((resolve) => {
    let said = '';
    const socket = net.connect({ path: lockName() });
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (d) => (said += d.toString()));
    socket.on('close', () => resolve(said.trim()));
    socket.on('error', () => resolve(''));
  });
}
