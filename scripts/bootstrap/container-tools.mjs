/**
 * What `npm test`'s container tests (test/deploy/) need to run for real: podman, runc,
 * debootstrap (the image's base where no registry answers), podman-compose (the compose file),
 * catatonit (kube play's pause image) and CNI's dnsname plugin (containers find each other by name). As root on Debian they are
 * installed from Debian's archive, and a `/etc/containers/containers.conf` is written when there
 * is none: runc as the runtime (the VMs this was probed on cannot run crun) and default ulimits
 * within this host's own (podman's default nofile of 1048576 is refused where the hard limit is
 * lower). Anywhere else nothing happens: the test skips with a notice saying why.
 */
import fs from 'node:fs';
import { capture, run, say } from './run.mjs';
import { aptEnv, aptGetUpdate, onPath } from './system-packages.mjs';

/** Each package with the program (on PATH) or file that shows it is installed. */
const PACKAGES = [
  { name: 'podman', pkg: 'podman' },
  { name: 'runc', pkg: 'runc' },
  { name: 'debootstrap', pkg: 'debootstrap' },
  { name: 'podman-compose', pkg: 'podman-compose' },
  // kube play builds its pause image from catatonit; without it (a recommend of podman, which
  // --no-install-recommends skips) every `kube play` failed: 'finding pause binary: exec: "catatonit"'.
  { name: 'catatonit', pkg: 'catatonit' },
  // Name resolution on podman's CNI networks (Debian 12's podman 4.3 uses CNI): without it a
  // network is made with DNS off, and compose's engine failed to find `postgres` (ENOTFOUND); the
  // cluster manifest's replicas reach `browserdeck-postgres-pod-0` by name the same way.
  { file: '/usr/lib/cni/dnsname', pkg: 'golang-github-containernetworking-plugin-dnsname' },
];
const CONF = '/etc/containers/containers.conf';
/** Generous for a browser service, and within what the probed VM allows. */
const NOFILE = 20_000;
const NPROC = 32_768;

/** `stdio`: where apt's output goes, as for ensureSystemPackages. */
export async function ensureContainerTools({ stdio = 'inherit' } = {}) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !fs.existsSync('/etc/debian_version')) return;
  const missing = PACKAGES.filter((p) => (p.file ? !fs.existsSync(p.file) : !onPath(p.name))).map((p) => p.pkg);
  if (missing.length) {
    say(`installing what the container tests need: ${missing.join(' ')}`);
    let code = await aptGetUpdate(stdio);
    if (code === 0) code = await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env: aptEnv(), stdio });
    if (code !== 0) {
      say(`apt-get failed (exit ${code}); the container tests will skip`);
      return;
    }
  }
  if (!fs.existsSync(CONF)) writeContainersConf();
}

function writeContainersConf() {
  const hard = (flag) => Number(capture('sh', ['-c', `ulimit -H${flag}`])) || Infinity;
  const nofile = Math.min(NOFILE, hard('n'));
  const nproc = Math.min(NPROC, hard('u'));
  fs.mkdirSync('/etc/containers', { recursive: true });
  fs.writeFileSync(
    CONF,
    `# Written by Browserdeck's bootstrap (scripts/bootstrap/container-tools.mjs) for its image test.\n` +
      `[containers]\ndefault_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]\n\n` +
      `[engine]\nruntime = "runc"\n`,
  );
  say(`wrote ${CONF} (runtime runc, nofile ${nofile}, nproc ${nproc})`);
}
