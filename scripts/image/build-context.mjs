/**
 * Stages the image's build context in out/image/context, one directory per COPY of
 * deploy/image/Containerfile so each layer changes only with what it holds:
 *
 *   node                      the Node binary running this script (>= 20, the ABI of node_modules)
 *   node_modules.tar          the production dependencies (`npm ls --omit=dev`), from here
 *   renderer/                 out/renderer, the built console
 *   app/                      package.json, tsconfig.json, bin/, src/{engine,shared,cli} (no tests),
 *                             out/engine/ (the engine's esbuild bundle, what the entrypoint runs)
 *   browserdeck-entrypoint.sh
 *   apt/                      Debian sources, bind-mounted into the apt step only (apt-sources.mjs)
 *
 * podman reuses a COPY layer when the content it copies is the same (times do not count).
 * The two big parts (node, node_modules: ~400 MB) are staged again only when their stamp changes
 * (the binary's path, size and time; the lockfile npm writes into node_modules on each install),
 * so a rebuild after a code change copies a few megabytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { buildEngineBundle } from '../build-engine-bundle.mjs';
import { writeAptSources } from './apt-sources.mjs';
import { fail } from './log.mjs';

/** The sources the engine and the command line need at run time. */
const APP_PATHS = ['package.json', 'tsconfig.json', 'bin', 'src/engine', 'src/shared', 'src/cli'];
/**
 * What the native packages carry that a Linux engine never loads (88 of the tarball's 240 MB):
 * node-pty's prebuilt binaries are for Windows and macOS only (on Linux it loads
 * build/Release/pty.node) and its deps/third_party are winpty/conpty; better-sqlite3's deps is
 * SQLite's source and obj* its compiler's object files (it loads build/Release/better_sqlite3.node).
 * The image test loads both in the image.
 */
const NOT_AT_RUN_TIME = [
  'node_modules/node-pty/prebuilds',
  'node_modules/node-pty/third_party',
  'node_modules/node-pty/deps',
  'node_modules/better-sqlite3/deps',
  'node_modules/better-sqlite3/build/Release/obj',
  'node_modules/better-sqlite3/build/Release/obj.target',
];

/** Resolves with the context directory. */
export async function stageContext(root) {
  const ctx = path.join(root, 'out/image/context');
  fs.mkdirSync(ctx, { recursive: true });
  // Everything but the stamped parts is staged afresh.
  for (const e of fs.readdirSync(ctx)) if (!STAMPED.includes(e) && !e.endsWith('.stamp')) fs.rmSync(path.join(ctx, e), { recursive: true, force: true });

  const node = fs.realpathSync(process.execPath);
  if (Number(process.versions.node.split('.')[0]) < 20) fail(`Node ${process.version} runs this script; the image needs >= 20`);
  const nodeStat = fs.statSync(node);
  staged(ctx, 'node', `${node} ${nodeStat.size} ${nodeStat.mtimeMs}`, (to) => {
    cp(node, to);
  });

  const lock = path.join(root, 'node_modules/.package-lock.json');
  const lockStamp = fs.existsSync(lock) ? `${fs.statSync(lock).mtimeMs} ${fs.readFileSync(path.join(root, 'package.json'), 'utf8')}` : String(Date.now());
  const tarStamp = `${lockStamp} without ${NOT_AT_RUN_TIME.join(',')}`;
  // One tarball, not a tree of ~40,000 files: podman checks its cache by hashing what a COPY or
  // ADD reads, and one file hashes in a second where the tree took most of a minute.
  staged(ctx, 'node_modules.tar', tarStamp, (tarball) => {
    const list = path.join(ctx, 'node_modules.list');
    fs.writeFileSync(
      list,
      productionPackages(root)
        .map((p) => `node_modules/${p}\n`)
        .join(''),
    );
    try {
      const excluded = NOT_AT_RUN_TIME.flatMap((p) => ['--exclude', p]);
      execFileSync('tar', ['-cf', tarball, '--sort=name', '--owner=0', '--group=0', '--numeric-owner', ...excluded, '-C', root, '-T', list]);
    } finally {
      fs.rmSync(list, { force: true });
    }
  });

  const renderer = path.join(root, 'out/renderer');
  if (!fs.existsSync(path.join(renderer, 'index.html'))) fail('out/renderer is missing (electron-vite build)');
  cp(renderer, path.join(ctx, 'renderer'));

  for (const p of APP_PATHS) {
    fs.mkdirSync(path.dirname(path.join(ctx, 'app', p)), { recursive: true });
    cp(path.join(root, p), path.join(ctx, 'app', p));
  }
  // Tests beside the modules are not the product; leaving them out also keeps a test edit from
  // rebuilding the layer.
  removeTests(path.join(ctx, 'app/src'));
  // What the entrypoint runs: the engine as one esbuild bundle with its child scripts
  // (scripts/build-engine-bundle.mjs), two levels under the app as in a checkout, so it finds
  // out/renderer and node_modules the same way. It starts without tsx transpiling the sources,
  // which stay for the `browserdeck` command.
  fs.mkdirSync(path.join(ctx, 'app/out'));
  cp(path.dirname(await buildEngineBundle(root)), path.join(ctx, 'app/out/engine'));

  cp(path.join(root, 'deploy/image/browserdeck-entrypoint.sh'), path.join(ctx, 'browserdeck-entrypoint.sh'));
  fs.chmodSync(path.join(ctx, 'browserdeck-entrypoint.sh'), 0o755);
  writeAptSources(path.join(ctx, 'apt'));
  return ctx;
}

const STAMPED = ['node', 'node_modules.tar'];

/** Stages `name` with `make(target)` unless what is there was made for the same `stamp`. */
function staged(ctx, name, stamp, make) {
  const target = path.join(ctx, name);
  const stampFile = path.join(ctx, `${name}.stamp`);
  if (fs.existsSync(target) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return;
  fs.rmSync(stampFile, { force: true });
  fs.rmSync(target, { recursive: true, force: true });
  make(target);
  fs.writeFileSync(stampFile, stamp);
}

/** Top-level package dirs (`x` or `@scope/x`) of the production dependency tree. */
function productionPackages(root) {
  // npm ls exits non-zero over problems elsewhere in node_modules (an extraneous package, an
  // unmet optional peer) while still listing the tree: the list is what counts.
  const out = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }).stdout ?? '';
  const top = new Set();
  for (const line of out.split('\n')) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(line.trim());
    // Nested copies (a/node_modules/b) come with their top-level package's directory.
    if (m && line.indexOf('node_modules/') === line.lastIndexOf('node_modules/')) top.add(m[1]);
  }
  if (top.size === 0) fail('npm ls --omit=dev listed no packages (is node_modules installed?)');
  return [...top].sort();
}

function cp(from, to) {
  execFileSync('cp', ['-a', from, to]);
}

function removeTests(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) removeTests(p);
    else if (/\.test\.tsx?$/.test(e.name)) fs.rmSync(p);
  }
}
