import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEngineBundle } from './build-engine-bundle.mjs';

// A miniature repository: an entry importing one module, and one child script.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-engine-bundle-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const write = (rel, text) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
write('src/engine/cli.ts', "import { word } from './word.js';\nconsole.log(word);\n");
write('src/engine/word.ts', "export const word: string = 'first';\n");
write('src/engine/runtime/sandbox/child.mjs', '// child one\n');

describe('the engine bundle (scripts/build-engine-bundle.mjs)', () => {
  it('is built once and reused while nothing it was built from changed', async () => {
    const entry = await buildEngineBundle(root);
    expect(fs.readFileSync(entry, 'utf8')).toContain('first');
    expect(fs.readFileSync(path.join(path.dirname(entry), 'engine-assets/sandbox/child.mjs'), 'utf8')).toBe('// child one\n');
    // Two levels under the repository, as serve.ts expects of its own module.
    expect(path.relative(root, entry).split(path.sep)).toHaveLength(3);
    // Reused: not even its pointer is written again.
    const pointer = fs.statSync(path.join(root, 'out/engine-bundle.json')).ino;
    expect(await buildEngineBundle(root)).toBe(entry);
    expect(fs.statSync(path.join(root, 'out/engine-bundle.json')).ino).toBe(pointer);
  });

  it('is built again when an imported module changes', async () => {
    const before = await buildEngineBundle(root);
    write('src/engine/word.ts', "export const word: string = 'second';\n");
    const after = await buildEngineBundle(root);
    expect(after).not.toBe(before);
    expect(fs.readFileSync(after, 'utf8')).toContain('second');
  });

  it('is built again when a child script changes or is added', async () => {
    const before = await buildEngineBundle(root);
    write('src/engine/runtime/sandbox/child.mjs', '// child two\n');
    const changed = await buildEngineBundle(root);
    expect(changed).not.toBe(before);
    expect(fs.readFileSync(path.join(path.dirname(changed), 'engine-assets/sandbox/child.mjs'), 'utf8')).toBe('// child two\n');
    write('src/engine/runtime/code-runner/new-child.mjs', '// new\n');
    const added = await buildEngineBundle(root);
    expect(added).not.toBe(changed);
    expect(fs.existsSync(path.join(path.dirname(added), 'engine-assets/code-runner/new-child.mjs'))).toBe(true);
  });

  it('builds one bundle when asked several times at once', async () => {
    write('src/engine/word.ts', "export const word: string = 'third';\n");
    const entries = await Promise.all([buildEngineBundle(root), buildEngineBundle(root), buildEngineBundle(root)]);
    expect(new Set(entries).size).toBe(1);
    expect(fs.readFileSync(entries[0], 'utf8')).toContain('third');
    expect(fs.readdirSync(path.join(root, 'out')).filter((e) => e.startsWith('.engine-'))).toEqual([]);
  });
});
