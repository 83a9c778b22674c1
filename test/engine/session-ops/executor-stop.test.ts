/**
 * An executor stopped (deleted, restarted, its session ended) while its process was still being
 * prepared: the call is answered with the reason and no process is started for it afterwards —
 * nothing would ever stop it (a deleted executor is no longer in its session's registry).
 * The launch is held on a gate, so the stop lands exactly between the call and the spawn.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Executor } from '../../../src/engine/runtime/code-runner/executor.js';
import type { RunnerLaunch } from '../../../src/engine/runtime/code-runner/runner-launch.js';
import { processesWith } from '../../helpers/chromium-web.js';

const markers: string[] = [];

afterEach(() => {
  for (const m of markers.splice(0)) for (const pid of processesWith(m)) process.kill(pid, 'SIGKILL');
});

/** A stand-in runner: a Node process that idles on its IPC channel, marked on its command line. */
function idleLaunch(marker: string): RunnerLaunch {
  return {
    file: process.execPath,
    args: ['-e', 'process.on("message", () => {}); setInterval(() => {}, 1 << 30);', '--', marker],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: '/',
    sandboxed: false,
    job: { cdpUrl: 'ws://127.0.0.1:1/devtools/browser/none', playwright: 'none' },
  };
}

describe('executor stopped during its launch', () => {
  for (const [reason, final] of [
    ['the executor was deleted', true],
    ['the executor was restarted', false],
  ] as const)
    it(`${final ? 'delete' : 'restart'}: the call fails with the reason and no process is left`, async () => {
      const marker = `--browserdeck-executor-stop-test=${randomUUID()}`;
      markers.push(marker);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let launching!: () => void;
      const launched = new Promise<void>((r) => (launching = r));
      const executor = new Executor(
        'gated',
        async () => {
          launching();
          await gate;
          return idleLaunch(marker);
        },
        async () => ({ background: true }),
      );
      const call = executor.run({ js: '', timeoutSec: 5 });
      await launched;
      await executor.stop(reason, final);
      release();
      // The call's promise settles once the call's own start-up steps are done.
      expect(await call).toMatchObject({ success: false, error: reason });
      expect(processesWith(marker)).toEqual([]);
    });
});
