/** Reads every source file under src/ as the import checker's `{path, imports, typeOnly}` input. */
import fs from 'node:fs';
import path from 'node:path';
import { readImports, readTypeOnlyImports, type SourceFile } from './import-rules.js';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export function sourceFiles(dir = path.join(repoRoot, 'src')): SourceFile[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    if (!/\.(ts|tsx|mts|js|jsx|mjs)$/.test(e.name)) return [];
    const text = fs.readFileSync(p, 'utf8');
    return [{ path: path.relative(repoRoot, p).split(path.sep).join('/'), imports: readImports(text), typeOnly: readTypeOnlyImports(text) }];
  });
}
