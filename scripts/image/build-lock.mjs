/**
 * One image build at a time per checkout. `npm test` runs the image test and the cluster test in
 * parallel, and each runs `npm run image`: two builds at once would restage the same build
 * context (out/image/context, whose files each build deletes and writes again) under each
 * other's `podman build`, and debootstrap the base twice. The second build waits here, then
 * finds every layer cached.
 *
 * The lock is out/image/build.lock holding the builder's pid, removed when that process exits
 * (also through `fail()`); one left by a killed build names a dead pid and is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Waits until this process holds the checkout's build lock; it is released when the process exits. */
export async function acquireBuildLock(root) {
  const dir = path.join(root, 'out/image');
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'build.lock');
  const mine = String(process.pid);
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, mine, { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const holder = fs.existsSync(lock) ? fs.readFileSync(lock, 'utf8') : '';
    // An empty file is a lock being written this instant: wait for it like a held one.
    if (holder && !alive(Number(holder))) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (!told) process.stderr.write(`[image] waiting for the build of pid ${holder || '?'} in this checkout to finish\n`);
    told = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.on('exit', () => {
    if (fs.existsSync(lock) && fs.readFileSync(lock, 'utf8') === mine) fs.rmSync(lock, { force: true });
  });
}
