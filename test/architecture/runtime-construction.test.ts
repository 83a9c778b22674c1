/**
 * Domain drives a running session through the narrow `RunningSession` interface
 * (runtime/session/running-session.ts) and gets one from the factory compose.ts injects; it never
 * loads or constructs the concrete `SessionRuntime` (issue 13 item 2). The scan is textual, so a
 * planted import or `new SessionRuntime(` in domain/ (or anywhere but runtime/ and compose.ts) fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImports, resolveTarget, type Target } from './import-rules.js';
import { repoRoot } from './source-tree.js';

const isConcrete = (t: Target) => t.kind === 'file' && t.path === 'src/engine/runtime/session/session-runtime';

/** Files that construct a SessionRuntime or import its module, outside those allowed to. */
function concreteRuntimeUses(files: Array<{ path: string; text: string }>): string[] {
  const allowed = (p: string) => p.startsWith('src/engine/runtime/') || p === 'src/engine/compose.ts';
  return files
    .filter((f) => !allowed(f.path))
    .filter((f) => /\bnew\s+SessionRuntime\s*\(/.test(f.text) || readImports(f.text).some((s) => isConcrete(resolveTarget(f.path, s))))
    .map((f) => f.path);
}

describe('the concrete SessionRuntime', () => {
  it('is constructed and imported only in runtime/ and the composition root', () => {
    const files = fs
      .readdirSync(path.join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((p) => /\.(ts|tsx|mts|js|mjs)$/.test(p))
      .map((p) => ({ path: `src/${p.split(path.sep).join('/')}`, text: fs.readFileSync(path.join(repoRoot, 'src', p), 'utf8') }));
    expect(files.some((f) => f.path === 'src/engine/compose.ts' && /new SessionRuntime\(/.test(f.text))).toBe(true);
    expect(concreteRuntimeUses(files)).toEqual([]);
  });

  it('fails on a planted construction or import in domain/ and api/', () => {
    const planted = [
      { path: 'src/engine/domain/sessions/x.ts', text: "import { SessionRuntime } from '../../runtime/session/session-runtime.js';" },
      { path: 'src/engine/domain/sessions/y.ts', text: "import type { SessionRuntime } from '../../runtime/session/session-runtime.js';" },
      { path: 'src/engine/api/z.ts', text: 'const rt = new SessionRuntime(spec);' },
      { path: 'src/engine/runtime/session/w.ts', text: 'const rt = new SessionRuntime(spec);' },
      { path: 'src/engine/compose.ts', text: 'const rt = new SessionRuntime(spec);' },
    ];
    expect(concreteRuntimeUses(planted)).toEqual(['src/engine/domain/sessions/x.ts', 'src/engine/domain/sessions/y.ts', 'src/engine/api/z.ts']);
  });
});
