import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquirePidFile, DataDirInUseError, ownerAlive, parsePidFile, PID_FILE, processStartTicks, runningEnginePid } from './engine-pid-file.js';

// Beyond any pid_max: kill(pid, 0) answers ESRCH, as for a process that crashed.
const DEAD_PID = 2_147_483_000;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-pidfile-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lockFile = () => path.join(dir, PID_FILE);
const writeLock = (o: object | string) => fs.writeFileSync(lockFile(), typeof o === 'string' ? o : JSON.stringify(o));

describe('the data dir lock', () => {
  it('names its owner and refuses a second taker until released', () => {
    const release = acquirePidFile(dir, 'cli.ts');
    const owner = parsePidFile(fs.readFileSync(lockFile(), 'utf8'))!;
    expect(owner).toMatchObject({ pid: process.pid, host: os.hostname(), program: 'cli.ts' });
    expect(Date.parse(owner.startedAt!)).not.toBeNaN();
    expect(runningEnginePid(dir)).toBe(process.pid);

    let refused: unknown;
    try {
      acquirePidFile(dir);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`in use by another engine: pid ${process.pid} (cli.ts) started ${owner.startedAt}`);
    // The refused taker left the holder's lock alone.
    expect(parsePidFile(fs.readFileSync(lockFile(), 'utf8'))).toEqual(owner);

    release();
    expect(fs.existsSync(lockFile())).toBe(false);
    expect(runningEnginePid(dir)).toBeNull();
    acquirePidFile(dir)();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('takes over the lock of a process that is gone, in either format', () => {
    writeLock({ pid: DEAD_PID, startedAt: '2026-01-01T00:00:00.000Z', host: os.hostname(), program: 'cli.ts' });
    expect(runningEnginePid(dir)).toBeNull();
    const release = acquirePidFile(dir);
    expect(parsePidFile(fs.readFileSync(lockFile(), 'utf8'))?.pid).toBe(process.pid);
    release();

    // An older engine wrote only its pid.
    writeLock(`${DEAD_PID}\n`);
    acquirePidFile(dir)();
    // Garbage (a disk that filled mid-write) does not lock a data dir forever.
    writeLock('{"pi');
    acquirePidFile(dir)();
  });

  it('takes over when the pid now belongs to another process (pid reuse after a crash)', () => {
    const ticks = processStartTicks(process.pid);
    if (ticks === undefined) return expect(process.platform).not.toBe('linux');
    writeLock({ pid: process.pid, procStart: String(Number(ticks) + 1), host: os.hostname() });
    expect(runningEnginePid(dir)).toBeNull();
    acquirePidFile(dir)();
  });

  it("respects another host's lock, which it cannot check, and says how to clear it", () => {
    writeLock({ pid: DEAD_PID, host: 'elsewhere.example', program: 'cli.ts' });
    expect(() => acquirePidFile(dir)).toThrow(`on host elsewhere.example. Stop that engine first`);
    expect(() => acquirePidFile(dir)).toThrow(`if no engine runs there any more, remove ${lockFile()}`);
  });

  it("a release does not remove another engine's lock", () => {
    const release = acquirePidFile(dir);
    writeLock({ pid: DEAD_PID + 1, host: 'elsewhere.example' });
    release();
    expect(fs.existsSync(lockFile())).toBe(true);
  });

  it('judges liveness by pid and start ticks on this host only', () => {
    const probe = (alive: boolean, ticks?: string) => ({ alive: () => alive, startTicks: () => ticks });
    const here = { pid: 42, host: os.hostname() };
    expect(ownerAlive(here, probe(false))).toBe(false);
    expect(ownerAlive(here, probe(true))).toBe(true);
    expect(ownerAlive({ ...here, procStart: '7' }, probe(true, '7'))).toBe(true);
    expect(ownerAlive({ ...here, procStart: '7' }, probe(true, '8'))).toBe(false);
    expect(ownerAlive({ pid: 42, host: 'elsewhere.example' }, probe(false))).toBe(true);
  });
});
