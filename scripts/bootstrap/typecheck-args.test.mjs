import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TSC_STATE, TYPECHECK_CONFIGS, typecheckArgs } from './typecheck-args.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-typecheck-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function touch(file, seconds) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), '');
  fs.utimesSync(path.join(root, file), seconds, seconds);
}

describe('typecheckArgs', () => {
  it('forces only when node_modules changed after the last typecheck', () => {
    const plain = ['-b', ...TYPECHECK_CONFIGS];
    const forced = ['-b', '--force', ...TYPECHECK_CONFIGS];
    // A fresh clone: no state, everything is built anyway.
    touch('node_modules/.package-lock.json', 1000);
    expect(typecheckArgs(root)).toEqual(plain);
    // Checked after the install: tsc -b's own up-to-date check is enough.
    for (const f of TSC_STATE) touch(f, 2000);
    expect(typecheckArgs(root)).toEqual(plain);
    // An install after one config's last check: everything again.
    touch(TSC_STATE[3], 500);
    expect(typecheckArgs(root)).toEqual(forced);
    touch(TSC_STATE[3], 2000);
    touch('node_modules/.package-lock.json', 3000);
    expect(typecheckArgs(root)).toEqual(forced);
  });
});
