/**
 * Issue 27: the docs lead somewhere. Every relative link of every page a newcomer reads (README,
 * ARCHITECTURE, CONTRIBUTING, docs/, resources/, src/**\/README.md) points at a file that exists,
 * and at a heading that exists when it names an #anchor; every backticked repository path
 * (`src/…`, `test/…`, `bench/…`, `scripts/…`, `resources/…`, `docs/…`, globs allowed) matches
 * something in the tree. Each failure names file:line and the target. The last test proves the
 * checks catch a dead link, a dead anchor and a dead path, on pages written for it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deadLinks, deadPaths, docFiles } from './doc-scan.js';

const root = path.resolve(import.meta.dirname, '../..');
const files = docFiles(root);

describe("the docs' references", () => {
  it('reads the pages it should', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/reference/api.md', 'docs/operate/configuration.md']));
  });

  it('every relative link resolves to a file, and its #anchor to a heading', () => {
    expect(deadLinks(root, files)).toEqual([]);
  });

  it('every backticked repository path exists', () => {
    expect(deadPaths(root, files)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-doc-links-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('report a missing file, a missing heading and a missing path, and pass live ones (code fences ignored)', () => {
    fs.mkdirSync(path.join(dir, 'docs/use'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src/engine'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/engine/real.ts'), '');
    fs.writeFileSync(path.join(dir, 'docs/use/target.md'), '# Target page\n\n## Two words\n');
    fs.writeFileSync(
      path.join(dir, 'docs/use/page.md'),
      [
        '# Page',
        '[live](target.md#two-words) [self](#page) [web](https://example.com/x.md) ![img](../../src/engine/real.ts)',
        '[dead](missing.md) [dead anchor](target.md#three-words)',
        '`src/engine/real.ts` `src/engine/*.ts` `src/engine/{real,other}.ts` `src/engine/gone.ts` `test/none/**/*.ts`',
        '```',
        '[in a fence](nowhere.md) `src/in-a-fence.ts`',
        '```',
      ].join('\n'),
    );
    const pages = ['docs/use/page.md', 'docs/use/target.md'];
    expect(deadLinks(dir, pages)).toEqual([
      'docs/use/page.md:3 → missing.md (no such file)',
      'docs/use/page.md:3 → target.md#three-words (no heading #three-words in docs/use/target.md)',
    ]);
    expect(deadPaths(dir, pages)).toEqual(['docs/use/page.md:4 → src/engine/gone.ts', 'docs/use/page.md:4 → test/none/**/*.ts']);
  });
});
