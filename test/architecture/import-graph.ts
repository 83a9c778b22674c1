/**
 * The folder-level import graph of src/, from the same map as the rules (import-rules.ts):
 * which layer imports which, split into value edges (code loads) and type-only edges, plus the
 * layers ranked top to bottom along the value edges. Print it with
 *
 *   npx tsx test/architecture/import-graph.ts --print
 *
 * (or IMPORT_GRAPH=1 npx vitest run test/architecture). Unit tests (*.test.ts) are left out:
 * they are not part of any process.
 */
import { fileURLToPath } from 'node:url';
import { LAYERS, layerOf, resolveTarget, type Layer, type SourceFile } from './import-rules.js';

export interface LayerGraph {
  /** `from → to → number of importing files`, value imports only. */
  value: Map<string, Map<string, number>>;
  /** The same for edges that exist only through `import type`. */
  types: Map<string, Map<string, number>>;
}

export function layerGraph(files: SourceFile[], layers: Record<string, Layer> = LAYERS): LayerGraph {
  const value = new Map<string, Map<string, Set<string>>>();
  const types = new Map<string, Map<string, Set<string>>>();
  const add = (g: typeof value, from: string, to: string, file: string) => {
    if (!g.has(from)) g.set(from, new Map());
    const m = g.get(from)!;
    if (!m.has(to)) m.set(to, new Set());
    m.get(to)!.add(file);
  };
  for (const f of files) {
    if (/\.test\.[a-z]+$/.test(f.path)) continue;
    const from = layerOf(f.path, layers);
    if (!from) continue;
    const typeOnly = new Set(f.typeOnly ?? []);
    for (const s of f.imports) {
      const t = resolveTarget(f.path, s);
      if (t.kind !== 'file') continue;
      const to = layerOf(t.path, layers);
      if (!to || to === from) continue;
      add(typeOnly.has(s) ? types : value, from, to, f.path);
    }
  }
  const counts = (g: typeof value) => new Map([...g].map(([k, m]) => [k, new Map([...m].map(([t, s]) => [t, s.size]))]));
  const v = counts(value);
  const t = counts(types);
  // An edge that also exists for values is a value edge.
  for (const [from, m] of t) for (const to of [...m.keys()]) if (v.get(from)?.has(to)) m.delete(to);
  return { value: v, types: t };
}

/** Layer cycles along value edges (each as a path a → … → a); empty when the graph only points down. */
export function cycles(g: Map<string, Map<string, number>>): string[][] {
  const out: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (n: string, stack: string[]) => {
    state.set(n, 'open');
    for (const to of g.get(n)?.keys() ?? []) {
      if (state.get(to) === 'open') out.push([...stack.slice(stack.indexOf(to)), n, to].filter((x, i, a) => i === 0 || x !== a[i - 1]));
      else if (!state.has(to)) visit(to, [...stack, n]);
    }
    state.set(n, 'done');
  };
  for (const n of [...g.keys()].sort()) if (!state.has(n)) visit(n, []);
  return out;
}

/** Layers by depth along value edges (longest path from a layer nothing imports). Assumes no cycle. */
export function ranks(g: Map<string, Map<string, number>>, all: string[]): string[][] {
  const depth = new Map<string, number>();
  const d = (n: string, seen = new Set<string>()): number => {
    if (depth.has(n)) return depth.get(n)!;
    seen.add(n);
    const parents = all.filter((p) => g.get(p)?.has(n) && !seen.has(p));
    const v = parents.length ? Math.max(...parents.map((p) => d(p, seen) + 1)) : 0;
    depth.set(n, v);
    return v;
  };
  const out: string[][] = [];
  for (const n of all) (out[d(n)] ??= []).push(n);
  return out.map((r) => r.sort());
}

export function formatGraph(g: LayerGraph, layers: Record<string, Layer> = LAYERS): string {
  const names = Object.keys(layers);
  const line = (m: Map<string, number> | undefined) =>
    [...(m ?? [])]
      .sort()
      .map(([to, n]) => `${to} (${n})`)
      .join(', ');
  const lines = [
    'layers, top to bottom along value imports:',
    '  ' +
      ranks(g.value, names)
        .map((r) => r.join(' | '))
        .join('\n  → '),
    '',
    'value imports (importing files):',
  ];
  for (const n of names) if (g.value.get(n)?.size) lines.push(`  ${n} → ${line(g.value.get(n))}`);
  lines.push('', 'type-only imports (no code loads):');
  for (const n of names) if (g.types.get(n)?.size) lines.push(`  ${n} ⇢ ${line(g.types.get(n))}`);
  const c = cycles(g.value);
  lines.push('', c.length ? `cycles: ${c.map((x) => x.join(' → ')).join('; ')}` : 'no cycles: every value import points down');
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--print')) {
  const { sourceFiles } = await import('./source-tree.js');
  console.log(formatGraph(layerGraph(sourceFiles())));
}
