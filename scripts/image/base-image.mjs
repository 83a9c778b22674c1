/**
 * The image's base, Debian bookworm, made once and then reused (`localhost/browserdeck-base:bookworm`):
 * `debian:bookworm-slim` when a registry answers within seconds; otherwise (machines that reach
 * only Debian's archive) `debootstrap --variant=minbase bookworm` from that archive, cleaned and
 * imported with `podman import`. Either way only Debian's packages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { debianMirror } from './apt-sources.mjs';
import { run } from '../bootstrap/run.mjs';
import { say, fail } from './log.mjs';

export const BASE_IMAGE = 'localhost/browserdeck-base:bookworm';
const REGISTRY_BASE = 'docker.io/library/debian:bookworm-slim';
/** How long a registry may take to answer before we debootstrap instead. */
const PULL_TIMEOUT_MS = 20_000;

/** Returns the base image's name, making it first when missing. */
export async function ensureBaseImage() {
  if ((await run('podman', ['image', 'exists', BASE_IMAGE])) === 0) return BASE_IMAGE;
  if (await pullWithin(REGISTRY_BASE, PULL_TIMEOUT_MS)) {
    await run('podman', ['tag', REGISTRY_BASE, BASE_IMAGE]);
    return BASE_IMAGE;
  }
  say(`no registry answered: making the base with debootstrap (minbase bookworm from ${debianMirror()})`);
  await debootstrapBase();
  return BASE_IMAGE;
}

function pullWithin(image, ms) {
  return new Promise((resolve) => {
    const child = spawn('podman', ['pull', '--quiet', image], { stdio: ['ignore', 'ignore', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGTERM'), ms);
    child.on('error', () => resolve(false));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

async function debootstrapBase() {
  if ((await run('debootstrap', ['--version'], { stdio: 'ignore' })) !== 0) {
    fail('no registry reachable and debootstrap is not installed (Debian: apt-get install -y debootstrap)');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browserdeck-base-'));
  const rootfs = path.join(dir, 'rootfs');
  try {
    const code = await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, debianMirror()], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (code !== 0) fail(`debootstrap failed (exit ${code})`);
    cleanRootfs(rootfs);
    // `podman import` reads the tarball from stdin; tar's numeric owners keep root-owned files root's.
    const tar = `tar --numeric-owner -C ${JSON.stringify(rootfs)} -c . | podman import --change 'CMD ["/bin/bash"]' - ${BASE_IMAGE}`;
    const imported = await run('sh', ['-c', tar], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (imported !== 0) fail(`podman import failed (exit ${imported})`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What debootstrap leaves that no layer should hold: the mirror's name (sources.list, its log),
 * the downloaded packages and lists, and this host's resolv.conf and hostname (the runtime
 * provides both).
 */
function cleanRootfs(rootfs) {
  const rm = (p) => fs.rmSync(path.join(rootfs, p), { recursive: true, force: true });
  rm('etc/apt/sources.list');
  rm('debootstrap');
  rm('etc/resolv.conf');
  rm('etc/hostname');
  for (const d of ['var/cache/apt', 'var/lib/apt/lists', 'var/log']) {
    const abs = path.join(rootfs, d);
    if (!fs.existsSync(abs)) continue;
    for (const e of fs.readdirSync(abs)) if (e !== 'partial' && e !== 'lock') rm(path.join(d, e));
  }
  fs.mkdirSync(path.join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
  fs.mkdirSync(path.join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
}
