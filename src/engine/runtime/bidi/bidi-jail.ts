/**
 * Runs a BiDi client's chromium-bidi mapper in its own process inside a helper-style jail
 * (bidi-mapper-child.mjs): new namespaces including the network (it reaches the browser only
 * through the session's CDP socket, bound in), capabilities dropped, system dirs read-only, the
 * data dir absent, a tmpfs root, `--die-with-parent`. Same BidiMapper contract as the in-process
 * mapper (bidi-mapper.ts), which stays for engines without the jail.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import type { SessionHandle } from '../session/session-handle.js';
import { unpackedPath } from '../assets.js';
import { devtoolsEndpoint } from '../chromium/devtools-address.js';
import { DEFAULT_PATH, SANDBOX_CDP_SOCKET, SANDBOX_DIR, baseSandboxArgs, runtimeEnv, runtimeMount } from '../sandbox/bwrap.js';
import { sessionCdpSocket } from '../sandbox/cdp-socket.js';
import { jailUserOf } from '../sandbox/jail-user.js';
import { jailSpawn } from '../sandbox/jail-start.js';
import { bindEngineAsset, jailVisible } from '../sandbox/jail-visible.js';
import type { BidiMapper } from './bidi-mapper.js';

/** What the mapper imports: chromium-bidi and its dependencies, and ws for the CDP socket. */
const PACKAGES = ['chromium-bidi', 'mitt', 'zod', 'ws'];
const INSIDE_MODULES = `${SANDBOX_DIR}/node_modules`;
const START_TIMEOUT_MS = 30_000;

function packageDir(name: string): string {
  // ws exposes its entry; the others are found next to it (npm hoists them side by side).
  const wsDir = path.dirname(createRequire(import.meta.url).resolve('ws'));
  return unpackedPath(path.join(path.dirname(wsDir), name));
}

export async function startJailedBidiMapper(handle: SessionHandle, bwrap: string, hide: string[], toClient: (message: unknown) => void): Promise<BidiMapper> {
  const socket = await sessionCdpSocket(handle);
  const a = await baseSandboxArgs({ hide });
  const node = runtimeMount(a);
  for (const p of PACKAGES) a.push('--ro-bind', jailVisible(packageDir(p)), `${INSIDE_MODULES}/${p}`);
  bindEngineAsset(a, 'bidi/bidi-mapper-child.mjs');
  a.push('--ro-bind', socket, SANDBOX_CDP_SOCKET);
  a.push('--chdir', '/', '--clearenv', '--setenv', 'PATH', DEFAULT_PATH);
  for (const [k, v] of Object.entries(runtimeEnv())) a.push('--setenv', k, v);
  const browserPath = devtoolsEndpoint(handle.browserCdpUrl()).path;
  const run = jailSpawn(jailUserOf(handle.dirs.root), handle.jailGroups, {
    file: bwrap,
    args: [...a, '--', node, `${SANDBOX_DIR}/bidi-mapper-child.mjs`, INSIDE_MODULES, SANDBOX_CDP_SOCKET, browserPath],
  });
  const child = spawn(run.file, run.args, {
    ...run.as,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdin.on('error', () => {});
  let stderr = '';
  // Bounded: a mapper that never gets ready is killed, not left behind while its client waits.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the BiDi mapper did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-2000);
      if (stderr.includes('bidi-mapper: ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the BiDi mapper exited: ${stderr.trim().split('\n').slice(-2).join(' | ')}`));
    });
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      toClient(JSON.parse(line));
    } catch {
      /* not a message */
    }
  });
  return {
    dispatch(command) {
      if (child.stdin.writable) child.stdin.write(`${JSON.stringify(command)}\n`);
    },
    close() {
      child.kill('SIGKILL');
    },
    cdpClosed: exited,
  };
}
