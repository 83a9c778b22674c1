/**
 * The run report (scripts/bootstrap/run-report.mjs) from a real vitest run: it reads vitest's
 * reporter API (test modules, their projects, diagnostics, failed tests), which a vitest upgrade
 * can change under it — and then `npm test`'s summary would stop naming what failed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { failedTests } from '../../scripts/bootstrap/failed-tests.mjs';
import { runReportArgs } from '../../scripts/bootstrap/run-report.mjs';
import { slowestFiles } from '../../scripts/bootstrap/slowest-files.mjs';

const root = path.resolve(import.meta.dirname, '../..');
// Inside the checkout, so the fixture's imports of vitest resolve to its node_modules.
const dir = fs.mkdtempSync(path.join(root, 'out', 'run-report-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string) {
  fs.writeFileSync(path.join(dir, name), text);
}

describe('the run report', () => {
  // The project's env reaching only its own workers is what vitest.config.ts's integration-pg relies on.
  it('names each module with its project, seconds and failures, from a real vitest run', async () => {
    write(
      'vitest.config.mjs',
      `export default { test: { projects: [
        { test: { name: 'integration', include: ['sqlite.test.mjs', 'both.test.mjs'] } },
        { test: { name: 'integration-pg', include: ['both.test.mjs'], env: { ON_PG: '1' } } },
      ] } };\n`,
    );
    write('sqlite.test.mjs', `import { beforeAll, it } from 'vitest';\nbeforeAll(() => { throw new Error('hook broke'); });\nit('never runs', () => {});\n`);
    write(
      'both.test.mjs',
      `import { expect, it } from 'vitest';\nit('waits', async () => { await new Promise((r) => setTimeout(r, 300)); });\nit('fails on postgres', () => { expect(process.env.ON_PG).toBeUndefined(); });\n` +
        `it('fails everywhere', () => { expect(1).toBe(2); });\n`,
    );
    const report = path.join(dir, 'report.json');
    const run = promisify(execFile)(path.join(root, 'node_modules', '.bin', 'vitest'), ['run', '--root', dir, ...runReportArgs()], {
      cwd: dir,
      env: { ...process.env, BROWSERDECK_RUN_REPORT: report },
    });
    await expect(run).rejects.toMatchObject({ code: 1 });

    const failed = failedTests(report, dir);
    expect(failed.filter((l) => l.startsWith('×')).sort()).toEqual([
      '× both.test.mjs (PostgreSQL) › fails everywhere',
      '× both.test.mjs (PostgreSQL) › fails on postgres',
      '× both.test.mjs (SQLite) › fails everywhere',
      '× sqlite.test.mjs (SQLite)',
    ]);
    expect(failed.join('\n')).toContain('hook broke');
    expect(failed.join('\n')).toContain('expected 1 to be 2');

    const slow = slowestFiles(report, dir);
    expect(slow.map((g) => g.title).sort()).toEqual(['PostgreSQL', 'SQLite']);
    const both = slow.find((g) => g.title === 'PostgreSQL')!.lines;
    expect(both).toHaveLength(1);
    // The module's time includes its tests (one waits 300 ms).
    expect(Number(both[0].trim().split(' ')[0])).toBeGreaterThanOrEqual(0.3);
  });
});
