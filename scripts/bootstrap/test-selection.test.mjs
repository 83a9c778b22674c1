import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isDatabaseTest, isOwnProcessTest, pgTestFiles } from './test-selection.mjs';
import { failedTests } from './failed-tests.mjs';
import { slowestFiles } from './slowest-files.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-selection-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(file, text) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
  return file;
}

describe('the PostgreSQL pass takes tagged files, not folders', () => {
  const tagged = write('test/engine/org/keys.test.ts', '/**\n * Keys.\n *\n * @database listing is a query.\n */\nimport {} from "vitest";\n');
  const named = write('test/engine/sessions/lifecycle.pg.test.ts', 'import {} from "vitest";\n');
  const lineTag = write('test/engine/x/line.test.ts', '// @database pagination\n');
  const untagged = write('test/engine/org/fuzz.test.ts', '/**\n * Mentions @database only mid-sentence: not a tag.\n */\n');
  const late = write('test/engine/org/late.test.ts', `${'x'.repeat(5000)}\n// @database too far down\n`);

  it('knows a tag line in the header, the .pg.test.ts name, and nothing else', () => {
    expect(isDatabaseTest(root, tagged)).toBe(true);
    expect(isDatabaseTest(root, named)).toBe(true);
    expect(isDatabaseTest(root, lineTag)).toBe(true);
    expect(isDatabaseTest(root, untagged)).toBe(false);
    expect(isDatabaseTest(root, late)).toBe(false);
  });

  it('lists exactly the tagged files, narrowed by filters', () => {
    expect(pgTestFiles(root, []).sort()).toEqual([tagged, named, lineTag].sort());
    expect(pgTestFiles(root, ['sessions'])).toEqual([named]);
  });
});

describe('isOwnProcessTest', () => {
  it('knows the @own-process tag line in the header', () => {
    expect(isOwnProcessTest(root, write('test/a/own.test.ts', '/**\n * @own-process probes once per process\n */\n'))).toBe(true);
    expect(isOwnProcessTest(root, write('test/a/shared.test.ts', '/**\n * Says @own-process mid-line only.\n */\n'))).toBe(false);
  });
});

/** A run report as run-report.mjs writes it. */
function report(modules, unhandledErrors = []) {
  const file = path.join(root, `report-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify({ modules, unhandledErrors }));
  return file;
}
const mod = (project, name, seconds, extra = {}) => ({ project, file: path.join(root, name), seconds, state: 'passed', errors: [], failed: [], ...extra });

describe('slowestFiles', () => {
  it('lists the slowest files per database, slowest first, the same file on both', () => {
    const sqlite = Array.from({ length: 20 }, (_, i) => mod(i % 2 ? 'integration' : 'integration-own-process', `test/f${i}.test.ts`, i));
    const groups = slowestFiles(report([...sqlite, mod('integration-pg', 'test/f3.test.ts', 7.25)]), root);
    expect(groups.map((g) => g.title)).toEqual(['SQLite', 'PostgreSQL']);
    expect(groups[0].lines).toHaveLength(15);
    expect(groups[0].lines[0]).toBe('   19.0 s  test/f19.test.ts');
    expect(groups[0].lines[14]).toBe('    5.0 s  test/f5.test.ts');
    expect(groups[1].lines).toEqual(['    7.3 s  test/f3.test.ts']);
  });

  it('answers nothing for a missing report', () => {
    expect(slowestFiles(path.join(root, 'none.json'), root)).toEqual([]);
  });
});

describe('failedTests', () => {
  it('names each failed test with its database and the first lines of its error, and files that failed outside a test', () => {
    const file = report(
      [
        mod('integration-pg', 'test/a.test.ts', 1, {
          state: 'failed',
          failed: [{ name: 'lists keys', error: 'AssertionError: expected 1\n  at x\n  at y\n  at z' }],
        }),
        mod('integration', 'test/b.test.ts', 1, { state: 'failed', errors: ['Error: hook timed out'] }),
        mod('integration', 'test/c.test.ts', 1),
      ],
      ['Error: unhandled rejection'],
    );
    expect(failedTests(file, root)).toEqual([
      '× test/a.test.ts (PostgreSQL) › lists keys',
      '    AssertionError: expected 1',
      '      at x',
      '      at y',
      '× test/b.test.ts (SQLite)',
      '    Error: hook timed out',
      '× unhandled error',
      '    Error: unhandled rejection',
    ]);
  });

  it('answers nothing for a missing report', () => {
    expect(failedTests(path.join(root, 'none.json'), root)).toEqual([]);
  });
});
