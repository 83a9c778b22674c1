/**
 * After an unclean stop the engine ends what the last run left (here: a session row that says
 * "running on this node" with nobody supervising it) and says so in one warning line of its
 * own log; a clean restart says nothing of the kind. The engine's log is pino on fd 1 through
 * sonic-boom (fs.write / fs.writeSync): the test records those writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

const written: string[] = [];
const realWriteSync = fs.writeSync;
const realWrite = fs.write;
const record = (fd: number, data: unknown) => {
  if (fd === 1 || fd === 2) written.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8'));
};
beforeAll(() => {
  (fs as { writeSync: unknown }).writeSync = function (fd: number, data: unknown, ...rest: unknown[]) {
    record(fd, data);
    return (realWriteSync as (...a: unknown[]) => number).call(fs, fd, data, ...rest);
  };
  (fs as { write: unknown }).write = function (fd: number, data: unknown, ...rest: unknown[]) {
    record(fd, data);
    return (realWrite as (...a: unknown[]) => void).call(fs, fd, data, ...rest);
  };
});
afterAll(() => {
  (fs as { writeSync: unknown }).writeSync = realWriteSync;
  (fs as { write: unknown }).write = realWrite;
});

const recoveryLines = () =>
  written
    .join('')
    .split('\n')
    .filter((l) => l.includes('recovered from an unclean stop'));

describe('crash recovery', () => {
  it('logs one line naming what it ended after an unclean stop, nothing after a clean one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-'));
    const a = await startTestEngine({ dataDir });
    let b: TestEngine | undefined;
    let c: TestEngine | undefined;
    try {
      const databaseUrl = a.engine.config.databaseUrl;
      const running = await a.client.browsers.create({ headless: true });
      // Two rows that say "running on this node" with no browser anyone supervises, as after a
      // crash of the engine process.
      const base = await a.engine.context.db.selectFrom('browser_sessions').selectAll().where('id', '=', running.session_id).executeTakeFirstOrThrow();
      for (const ghostId of ['ghostlog000000000000000a', 'ghostlog000000000000000b']) {
        const marker = path.join(dataDir, 'sessions', ghostId);
        fs.mkdirSync(marker, { recursive: true });
        await a.engine.context.db
          .insertInto('browser_sessions')
          .values({ ...base, id: ghostId, name: null, pid: null, pgid: null, xvfb_pid: null, marker, deleted_at: null, ended_reason: null })
          .execute();
      }
      // A login flow that was in progress when the engine went away.
      await a.client.profiles.create({ name: 'recovery-login' });
      const conn = await a.client.auth.connections.create({ domain: 'login.example', profile_name: 'recovery-login' });
      await a.engine.context.db
        .updateTable('auth_connections')
        .set({ flow: JSON.stringify({ id: 'ghostflow0000000000000001', flow_status: 'IN_PROGRESS' }) })
        .where('id', '=', conn.id)
        .execute();
      await a.engine.stop();

      b = await startTestEngine({ dataDir, databaseUrl, logLevel: 'warn' });
      const lines = recoveryLines();
      expect(lines).toHaveLength(1);
      // How many of each, and why.
      expect(JSON.parse(lines[0])).toMatchObject({
        level: 40,
        msg: expect.stringMatching(/ended 2 browser sessions \(engine_restarted.*1 login flows \(FAILED engine_restarted\)/),
      });
      expect((await b.client.auth.connections.retrieve(conn.id)).flow_status).toBe('FAILED');
      await b.engine.stop();

      // b stopped cleanly: the next start has nothing to recover and prints no such line.
      written.length = 0;
      c = await startTestEngine({ dataDir, databaseUrl, logLevel: 'info' });
      expect(written.join('')).toMatch(/"level":30/); // the log was captured at all
      expect(recoveryLines()).toEqual([]);
    } finally {
      await c?.stop();
      await b?.stop();
      await a.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
