/**
 * One tsconfig per process (issue 13 item 6), so the compiler enforces what each process can
 * reach: the engine and Electron main compile without the DOM lib, the renderer without Node
 * types, the preload with the DOM. `npm run typecheck` (and npm test's typecheck stages) run
 * each; this checks the configs themselves: their libs and types, and that every source file
 * under src/ is compiled by its process's config.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './source-tree.js';

interface ProcessConfig {
  file: string;
  /** The src/ folders of the process (src/shared joins every one). */
  owns: string[];
  dom: boolean;
  nodeTypes: boolean;
}

const PROCESS_CONFIGS: ProcessConfig[] = [
  { file: 'tsconfig.engine.json', owns: ['src/engine', 'src/cli'], dom: false, nodeTypes: true },
  { file: 'tsconfig.main.json', owns: ['src/main'], dom: false, nodeTypes: true },
  { file: 'tsconfig.preload.json', owns: ['src/preload'], dom: true, nodeTypes: false },
  { file: 'tsconfig.renderer.json', owns: ['src/renderer'], dom: true, nodeTypes: false },
];

/** A config as tsc reads it: its lib list (lower-cased, `lib.` and `.d.ts` stripped), types, and file list. */
function readConfig(file: string): { lib: string[]; types: string[] | undefined; files: string[] } {
  const abs = path.join(repoRoot, file);
  const read = ts.readConfigFile(abs, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(abs), undefined, abs);
  return {
    lib: (parsed.options.lib ?? []).map((l) =>
      l
        .toLowerCase()
        .replace(/^lib\./, '')
        .replace(/\.d\.ts$/, ''),
    ),
    types: parsed.options.types,
    files: parsed.fileNames.map((f) => path.relative(repoRoot, f).split(path.sep).join('/')),
  };
}

/** What is wrong with one process's config, as sentences (empty: nothing). */
function configProblems(c: ProcessConfig, read: { lib: string[]; types: string[] | undefined; files: string[] }, srcFiles: string[]): string[] {
  const out: string[] = [];
  const hasDom = read.lib.some((l) => l === 'dom' || l.startsWith('dom.'));
  if (hasDom !== c.dom) out.push(`${c.file}: ${c.dom ? 'needs' : 'must not have'} the DOM lib`);
  const hasNode = !!read.types?.includes('node');
  if (read.types === undefined) out.push(`${c.file}: names no types (all of node_modules/@types would load)`);
  else if (hasNode !== c.nodeTypes) out.push(`${c.file}: ${c.nodeTypes ? 'needs' : 'must not have'} Node types`);
  const compiled = new Set(read.files);
  const owned = srcFiles.filter((f) => [...c.owns, 'src/shared'].some((o) => f.startsWith(o + '/')));
  for (const f of owned) if (!compiled.has(f)) out.push(`${c.file}: does not compile ${f}`);
  for (const f of read.files) if (!owned.includes(f)) out.push(`${c.file}: compiles ${f}, which is another process's`);
  return out;
}

describe('one tsconfig per process', () => {
  it('each process config has its libs and types and compiles exactly its files', () => {
    const src = readConfig('tsconfig.json').files.filter((f) => f.startsWith('src/'));
    // Every folder of src/ belongs to a process (src/shared to all).
    const folders = new Set(src.map((f) => f.split('/').slice(0, 2).join('/')));
    const owned = new Set(['src/shared', ...PROCESS_CONFIGS.flatMap((c) => c.owns)]);
    expect([...folders].filter((d) => !owned.has(d))).toEqual([]);
    // The renderer's unit tests run under Node (vitest), so its config leaves them out.
    const renderer = (f: string) => /\.test\.tsx?$/.test(f) && (f.startsWith('src/renderer/') || f.startsWith('src/shared/'));
    const problems = PROCESS_CONFIGS.flatMap((c) =>
      configProblems(
        c,
        readConfig(c.file),
        src.filter((f) => c.file !== 'tsconfig.renderer.json' || !renderer(f)),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('runs in npm test and npm run typecheck', () => {
    const testRun = fs.readFileSync(path.join(repoRoot, 'scripts/bootstrap/test-run.mjs'), 'utf8');
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const files = PROCESS_CONFIGS.map((c) => c.file);
    expect(files.filter((f) => !testRun.includes(`['${f}',`))).toEqual([]);
    expect(files.filter((f) => !pkg.scripts.typecheck.includes(`-p ${f}`))).toEqual([]);
  });

  it('finds a config that would let the DOM into the engine or Node into the renderer (the check works)', () => {
    const engine = PROCESS_CONFIGS[0];
    const renderer = PROCESS_CONFIGS[3];
    const files = ['src/engine/a.ts', 'src/shared/b.ts', 'src/renderer/c.tsx'];
    expect(configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts'] }, files)).toEqual([]);
    expect(configProblems(engine, { lib: ['es2023', 'dom'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts'] }, files)).toEqual([
      'tsconfig.engine.json: must not have the DOM lib',
    ]);
    expect(configProblems(renderer, { lib: ['es2023', 'dom'], types: ['node'], files: ['src/renderer/c.tsx', 'src/shared/b.ts'] }, files)).toEqual([
      'tsconfig.renderer.json: must not have Node types',
    ]);
    expect(configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts'] }, files)).toEqual([
      'tsconfig.engine.json: does not compile src/shared/b.ts',
    ]);
    expect(configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts', 'src/renderer/c.tsx'] }, files)).toEqual([
      "tsconfig.engine.json: compiles src/renderer/c.tsx, which is another process's",
    ]);
  });
});
