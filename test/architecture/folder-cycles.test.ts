/**
 * The import graph of src/engine one folder finer than the layer map (import-rules.ts): every
 * folder is a node, value imports are the edges (import-graph.ts's `layerGraph`, type-only
 * imports left out). Issue 26 cut the circle runtime/code-runner ↔ runtime/webmcp (runners get
 * what they serve as values, api/session-runners.ts); this keeps it cut, and keeps the folder
 * circles that remain listed (as strongly connected groups of folders) so the list only shrinks.
 */
import { describe, expect, it } from 'vitest';
import { layerGraph } from './import-graph.js';
import type { Layer } from './import-rules.js';
import { sourceFiles } from './source-tree.js';
import { resolveTarget } from './import-rules.js';

/** Groups of folders that import each other today, each with why it is not cut yet. */
const KNOWN: Array<{ folders: string[]; why: string }> = [
  {
    folders: [
      'engine',
      'engine/api',
      'engine/domain/auth-connections',
      'engine/domain/nodes',
      'engine/domain/pools',
      'engine/domain/sessions',
      'engine/domain/telemetry-destinations',
      'engine/http',
    ],
    why: 'domain/telemetry-destinations reaches the composition root (src/engine/*.ts), which imports every feature',
  },
  { folders: ['engine/domain/apps', 'engine/domain/deployments'], why: 'apps and their deployments import each other' },
  {
    folders: [
      'engine/runtime',
      'engine/runtime/cdp',
      'engine/runtime/chromium',
      'engine/runtime/code-runner',
      'engine/runtime/sandbox',
      'engine/runtime/session-fs',
    ],
    why: 'files at runtime/ itself (screencast, service logs, …) import its subfolders and are imported by them',
  },
];

/** Strongly connected groups (more than one folder) of a graph, each sorted, sorted by first member. */
export function circles(g: Map<string, Map<string, number>>): string[][] {
  const nodes = [...new Set([...g.keys(), ...[...g.values()].flatMap((m) => [...m.keys()])])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

function folderGraph() {
  const files = sourceFiles().filter((f) => f.path.startsWith('src/engine/'));
  const folders = [...new Set(files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))];
  const layers: Record<string, Layer> = Object.fromEntries(
    folders.map((d) => [d.slice('src/'.length), { paths: [d], may: [], packages: [], node: true, why: 'one folder' }]),
  );
  return layerGraph(files, layers).value;
}

/** File → file along value imports, for all of src/ (tests left out; `import type` loads no code). */
function fileGraph() {
  const g = new Map<string, Map<string, number>>();
  for (const f of sourceFiles()) {
    if (/\.test\.[a-z]+$/.test(f.path)) continue;
    const from = f.path.replace(/\.[a-z]+$/, '');
    const typeOnly = new Set(f.typeOnly ?? []);
    for (const s of f.imports) {
      const t = resolveTarget(f.path, s);
      if (t.kind !== 'file' || typeOnly.has(s)) continue;
      if (!g.has(from)) g.set(from, new Map());
      g.get(from)!.set(t.path, 1);
    }
  }
  return g;
}

describe('file import graph of src', () => {
  it('has no import circle: no module loads one that (through others) loads it', () => {
    const g = fileGraph();
    // The graph is real: most edges land on a file that itself imports something.
    expect([...g.values()].reduce((n, m) => n + [...m.keys()].filter((k) => g.has(k)).length, 0)).toBeGreaterThan(500);
    expect(circles(g)).toEqual([]);
  });
});

describe('folder import graph of src/engine', () => {
  const found = circles(folderGraph());

  it('has code-runner and webmcp in no circle (runners get what they serve as values)', () => {
    expect(found.filter((c) => c.includes('engine/runtime/code-runner') && c.includes('engine/runtime/webmcp'))).toEqual([]);
  });

  it('has no circle but the known ones', () => {
    if (process.env.IMPORT_GRAPH) console.log(found.map((c) => c.join(' ↔ ')).join('\n'));
    expect(found).toEqual(KNOWN.map((k) => k.folders));
  });

  it('finds circles and only circles', () => {
    const g = new Map([
      ['a', new Map([['b', 1]])],
      ['b', new Map([['a', 1]])],
      ['c', new Map([['a', 1]])],
    ]);
    expect(circles(g)).toEqual([['a', 'b']]);
    expect(circles(new Map([['a', new Map([['b', 1]])]]))).toEqual([]);
  });
});
