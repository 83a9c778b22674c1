/**
 * One tsconfig per process (issue 13 item 6), so the compiler enforces what each process can
 * reach: the engine and Electron main compile without the DOM lib, the renderer without Node
 * types, the preload with the DOM. `npm run typecheck` (and npm test's typecheck stage) build
 * each with `tsc -b`; this checks the configs themselves: their libs and types, and that every
 * source file under src/ is compiled by its process's config, or by a config it references that
 * has the same libs and types (Electron main gets src/shared from the engine's, checked once).
 * tsconfig.json checks the rest of the tree and src/ but the renderer's modules, which only
 * tsconfig.renderer.json checks (their unit tests, run under Node, are tsconfig.json's).
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

interface ReadConfig {
  lib: string[];
  types: string[] | undefined;
  files: string[];
  /** The configs it references (`tsc -b` builds them first; their files come in as declarations). */
  references: string[];
}

/** A config as tsc reads it: its lib list (lower-cased, `lib.` and `.d.ts` stripped), types, file list and references. */
function readConfig(file: string): ReadConfig {
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
    references: (parsed.projectReferences ?? []).map((r) => path.relative(repoRoot, ts.resolveProjectReferencePath(r)).split(path.sep).join('/')),
  };
}

/** What is wrong with a config's libs and types for the process `c`, as sentences (empty: nothing). */
function libProblems(c: ProcessConfig, file: string, read: ReadConfig): string[] {
  const out: string[] = [];
  const hasDom = read.lib.some((l) => l === 'dom' || l.startsWith('dom.'));
  if (hasDom !== c.dom) out.push(`${file}: ${c.dom ? 'needs' : 'must not have'} the DOM lib`);
  const hasNode = !!read.types?.includes('node');
  if (read.types === undefined) out.push(`${file}: names no types (all of node_modules/@types would load)`);
  else if (hasNode !== c.nodeTypes) out.push(`${file}: ${c.nodeTypes ? 'needs' : 'must not have'} Node types`);
  return out;
}

/**
 * What is wrong with one process's config, as sentences (empty: nothing). `referenced` are the
 * configs it references, read: their src/shared files count as compiled for this process when
 * their libs and types are the process's own.
 */
function configProblems(c: ProcessConfig, read: ReadConfig, srcFiles: string[], referenced: Record<string, ReadConfig> = {}): string[] {
  const out = libProblems(c, c.file, read);
  const compiled = new Set(read.files);
  for (const [file, r] of Object.entries(referenced))
    if (libProblems(c, file, r).length === 0) for (const f of r.files) if (f.startsWith('src/shared/')) compiled.add(f);
  const owned = srcFiles.filter((f) => [...c.owns, 'src/shared'].some((o) => f.startsWith(o + '/')));
  for (const f of owned) if (!compiled.has(f)) out.push(`${c.file}: does not compile ${f}`);
  // Outside src/ only package.json, which the engine's version comes from.
  for (const f of read.files) if (!owned.includes(f) && f !== 'package.json') out.push(`${c.file}: compiles ${f}, which is another process's`);
  return out;
}

/** Every TypeScript file under src/, as on disk (not as a config lists it: a new folder counts too). */
function srcFiles(dir = path.join(repoRoot, 'src')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return srcFiles(p);
    // What TypeScript compiles: .ts, .tsx, .mts, .cts, declarations included (the .d.mts beside a child script).
    return /\.[cm]?tsx?$/.test(e.name) ? [path.relative(repoRoot, p).split(path.sep).join('/')] : [];
  });
}

/** The src/ files tsconfig.json leaves to tsconfig.renderer.json: the renderer's modules, not its unit tests. */
const rendererModule = (f: string) => f.startsWith('src/renderer/') && !/\.test\.tsx?$/.test(f);

describe('one tsconfig per process', () => {
  it('tsconfig.json checks every file under src/ but the renderer modules, and only tsconfig.renderer.json checks those', () => {
    const all = readConfig('tsconfig.json').files;
    const src = srcFiles();
    expect(src.filter((f) => !rendererModule(f) && !all.includes(f))).toEqual([]);
    expect(all.filter(rendererModule)).toEqual([]);
    expect(src.filter(rendererModule).length).toBeGreaterThan(0);
  });

  it('each process config has its libs and types and compiles exactly its files', () => {
    const src = srcFiles();
    // Every folder of src/ belongs to a process (src/shared to all).
    const folders = new Set(src.map((f) => f.split('/').slice(0, 2).join('/')));
    const owned = new Set(['src/shared', ...PROCESS_CONFIGS.flatMap((c) => c.owns)]);
    expect([...folders].filter((d) => !owned.has(d))).toEqual([]);
    // The renderer's unit tests run under Node (vitest), so its config leaves them out.
    const renderer = (f: string) => /\.test\.tsx?$/.test(f) && (f.startsWith('src/renderer/') || f.startsWith('src/shared/'));
    const problems = PROCESS_CONFIGS.flatMap((c) => {
      const read = readConfig(c.file);
      return configProblems(
        c,
        read,
        src.filter((f) => c.file !== 'tsconfig.renderer.json' || !renderer(f)),
        Object.fromEntries(read.references.map((r) => [r, readConfig(r)])),
      );
    });
    expect(problems).toEqual([]);
    // Electron main checks src/shared through the engine's config, without the DOM lib either.
    expect(readConfig('tsconfig.main.json').references).toEqual(['tsconfig.engine.json']);
  });

  it('runs in npm test and npm run typecheck', async () => {
    const args = fs.readFileSync(path.join(repoRoot, 'scripts/bootstrap/typecheck-args.mjs'), 'utf8');
    const testRun = fs.readFileSync(path.join(repoRoot, 'scripts/bootstrap/test-run.mjs'), 'utf8');
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const files = ['tsconfig.json', ...PROCESS_CONFIGS.map((c) => c.file)];
    const configs = /TYPECHECK_CONFIGS = \[([^\]]*)\]/.exec(args)?.[1] ?? '';
    expect(files.filter((f) => !configs.includes(`'${f}'`))).toEqual([]);
    expect(testRun).toContain("run(bin('tsgo'), typecheckArgs(root)");
    expect(pkg.scripts.typecheck).toBe(`tsgo -b --force ${files.join(' ')}`);
    // Whether npm test forces depends on each config's state file: they must be the configs' own.
    const { TSC_STATE } = await import('../../scripts/bootstrap/typecheck-args.mjs');
    const stateOf = (f: string) =>
      (ts.readConfigFile(path.join(repoRoot, f), ts.sys.readFile).config as { compilerOptions?: { tsBuildInfoFile?: string } }).compilerOptions
        ?.tsBuildInfoFile;
    expect(files.map(stateOf)).toEqual(TSC_STATE);
  });

  it('finds a config that would let the DOM into the engine or Node into the renderer (the check works)', () => {
    const engine = PROCESS_CONFIGS[0];
    const renderer = PROCESS_CONFIGS[3];
    const files = ['src/engine/a.ts', 'src/shared/b.ts', 'src/renderer/c.tsx'];
    expect(configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts'], references: [] }, files)).toEqual([]);
    expect(configProblems(engine, { lib: ['es2023', 'dom'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts'], references: [] }, files)).toEqual([
      'tsconfig.engine.json: must not have the DOM lib',
    ]);
    expect(
      configProblems(renderer, { lib: ['es2023', 'dom'], types: ['node'], files: ['src/renderer/c.tsx', 'src/shared/b.ts'], references: [] }, files),
    ).toEqual(['tsconfig.renderer.json: must not have Node types']);
    expect(configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts'], references: [] }, files)).toEqual([
      'tsconfig.engine.json: does not compile src/shared/b.ts',
    ]);
    expect(
      configProblems(engine, { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts', 'src/renderer/c.tsx'], references: [] }, files),
    ).toEqual(["tsconfig.engine.json: compiles src/renderer/c.tsx, which is another process's"]);
    // src/shared through a referenced config counts only when that config has the process's libs and types.
    const main = PROCESS_CONFIGS[1];
    const mainFiles = ['src/main/m.ts', 'src/shared/b.ts'];
    const read = { lib: ['es2023'], types: ['node'], files: ['src/main/m.ts'], references: ['tsconfig.engine.json'] };
    const engineRead = { lib: ['es2023'], types: ['node'], files: ['src/engine/a.ts', 'src/shared/b.ts'], references: [] };
    expect(configProblems(main, read, mainFiles, { 'tsconfig.engine.json': engineRead })).toEqual([]);
    expect(configProblems(main, read, mainFiles, { 'tsconfig.engine.json': { ...engineRead, lib: ['es2023', 'dom'] } })).toEqual([
      'tsconfig.main.json: does not compile src/shared/b.ts',
    ]);
  });
});
