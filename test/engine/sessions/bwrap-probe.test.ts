/**
 * The bubblewrap probe (src/engine/runtime/sandbox/bwrap.ts) tries again before it turns the jail
 * off for the engine's life: a start that fails once (a host mount gone between bwrap's bind and
 * its remount) must not count as "bwrap does not work here". Fake bwrap binaries stand in for the
 * real one, so the failure is the one seen, on demand.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-bwrap-probe-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const RACE =
  'bwrap: Can\'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/var/lib/containers/storage/overlay/x/merged": No such file or directory';

/** A fake bwrap that fails with the mount race its first `failures` runs, then succeeds; counts its runs. */
function fakeBwrap(name: string, failures: number): { bin: string; runs(): number } {
  const bin = path.join(dir, name);
  const count = `${bin}.runs`;
  fs.writeFileSync(count, '');
  fs.writeFileSync(`${bin}.stderr`, `${RACE}\n`);
  fs.writeFileSync(bin, `#!/bin/sh\necho run >> '${count}'\n[ $(wc -l < '${count}') -le ${failures} ] && { cat '${bin}.stderr' >&2; exit 1; }\nexit 0\n`, {
    mode: 0o755,
  });
  return { bin, runs: () => fs.readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

describe('the bubblewrap probe', () => {
  it('tries again after a start that failed on a mount that went away, and then says the jail works', async () => {
    const fake = fakeBwrap('flaky-bwrap', 1);
    expect(await probeBwrap(fake.bin, 3, 10)).toEqual({ ok: true });
    expect(fake.runs()).toBe(2);
  });

  it('gives up after its attempts with the last reason, naming the binary', async () => {
    const fake = fakeBwrap('broken-bwrap', 99);
    const r = await probeBwrap(fake.bin, 3, 10);
    expect(r.ok).toBe(false);
    expect(r.error).toBe(`${fake.bin} does not start a sandbox here: ${RACE}`);
    expect(fake.runs()).toBe(3);
  });
});
