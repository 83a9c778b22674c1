/**
 * The systemd unit for a plain VM (deploy/systemd/browserdeck.service). This machine runs no
 * systemd as its init, so the unit cannot be started here; what can be checked is checked:
 * `systemd-analyze verify` reads it with systemd's own parser (an unknown key or a bad value is a
 * warning it prints and then ignores, so the test fails on any output, not only on the exit
 * code), every flag in ExecStart is one `serve` takes, and every BROWSERDECK_ variable the unit
 * and its comments name is one the engine reads.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_OPTIONS, parseArgsOptions } from '../../src/engine/config-options.js';
import { root } from './podman.js';

const unitPath = path.join(root, 'deploy/systemd/browserdeck.service');
const unit = fs.readFileSync(unitPath, 'utf8');

const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const skipReason = analyze.error ? `systemd-analyze is not installed (${analyze.error.message})` : null;
if (skipReason) console.warn(`\n!!! SKIPPED systemd-analyze checks in test/deploy/systemd-unit.test.ts: ${skipReason}.\n`);

/** What `systemd-analyze verify` says of a unit file with this text (exit code and all output). */
function verify(text: string): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-unit-'));
  try {
    const file = path.join(dir, 'browserdeck.service');
    fs.writeFileSync(file, text);
    const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the systemd unit', () => {
  it.skipIf(skipReason !== null)('passes systemd-analyze verify with nothing to say', () => {
    expect(verify(unit)).toEqual({ status: 0, output: '' });
  });

  it.skipIf(skipReason !== null)('the check sees a misspelt key and a bad value (which systemd only warns of)', () => {
    const spoilt = unit.replace(/^KillMode=/m, 'KillMod=').replace(/^Restart=on-failure$/m, 'Restart=sometimes');
    expect(spoilt).not.toBe(unit);
    const said = verify(spoilt).output;
    expect(said).toContain("Unknown key 'KillMod'");
    expect(said).toContain('sometimes');
  });

  it('starts the engine with flags serve takes', () => {
    const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1];
    expect(execStart).toBeDefined();
    const flags = [...execStart!.matchAll(/\s--([a-z][a-z0-9-]*)/g)].map((m) => m[1]).filter((f) => f !== 'import');
    expect(flags.length).toBeGreaterThan(0);
    const known = Object.keys(parseArgsOptions());
    expect(flags.filter((f) => !known.includes(f))).toEqual([]);
    // The entry it runs is the engine's CLI.
    expect(execStart).toMatch(/src\/engine\/cli\.ts/);
    expect(fs.existsSync(path.join(root, 'src/engine/cli.ts'))).toBe(true);
  });

  it('names only variables the engine reads', () => {
    const named = [...new Set(unit.match(/BROWSERDECK_[A-Z0-9_]+/g) ?? [])];
    expect(named).toContain('BROWSERDECK_DATA_DIR');
    const fromTable = new Set(CONFIG_OPTIONS.flatMap((o) => (o.env ? [o.env] : [])));
    // A few are read outside the configuration table (the secret key's provider, for one).
    const engineText = (fs.readdirSync(path.join(root, 'src/engine'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => fs.readFileSync(path.join(root, 'src/engine', f), 'utf8'))
      .join('\n');
    const unknown = named.filter((v) => !fromTable.has(v) && !new RegExp(`env\\.${v}\\b|['"]${v}['"]`).test(engineText));
    expect(unknown).toEqual([]);
  });
});
