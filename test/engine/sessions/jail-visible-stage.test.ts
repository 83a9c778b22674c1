/**
 * jail-visible.ts copies engine files jails cannot reach into a stage directory that every jail
 * then runs from: a stage someone other than root owns is refused, not used. Root only (the
 * copies are made only when jails run as unprivileged users).
 *
 * @own-process the stage directory is read from the environment when jail-visible.ts loads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-stage-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it.runIf(asRoot)('refuses a stage directory another user owns (it could swap what jails run)', async () => {
  // A source others cannot reach (under a 0700 dir), so it must be copied.
  const closed = path.join(tmp, 'closed');
  fs.mkdirSync(closed, { mode: 0o700 });
  const source = path.join(closed, 'helper.mjs');
  fs.writeFileSync(source, 'export {};\n');
  const stage = path.join(tmp, 'stage');
  fs.mkdirSync(stage, { mode: 0o755 });
  fs.chmodSync(tmp, 0o755);
  fs.chownSync(stage, 65534, 65534);
  process.env.BROWSERDECK_JAIL_VISIBLE_DIR = stage;
  try {
    const { jailVisible } = await import('../../../src/engine/runtime/sandbox/jail-visible.js');
    expect(() => jailVisible(source)).toThrow(/is not a root-owned directory/);
    expect(fs.readdirSync(stage)).toEqual([]);
  } finally {
    delete process.env.BROWSERDECK_JAIL_VISIBLE_DIR;
  }
});
