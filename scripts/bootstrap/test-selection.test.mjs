import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isDatabaseTest, pgTestFiles } from './test-run.mjs';
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

describe('slowestFiles', () => {
  it('names the slowest files of a vitest JSON report, slowest first', () => {
    const report = path.join(root, 'report.json');
    const results = Array.from({ length: 20 }, (_, i) => ({ name: path.join(root, `test/f${i}.test.ts`), startTime: 0, endTime: i * 1000 }));
    fs.writeFileSync(report, JSON.stringify({ testResults: [...results, { name: path.join(root, 'test/skipped.test.ts') }] }));
    const lines = slowestFiles(report, root);
    expect(lines).toHaveLength(15);
    expect(lines[0]).toBe('   19.0 s  test/f19.test.ts');
    expect(lines[14]).toBe('    5.0 s  test/f5.test.ts');
  });

  it('answers nothing for a missing report', () => {
    expect(slowestFiles(path.join(root, 'none.json'), root)).toEqual([]);
  });
});
