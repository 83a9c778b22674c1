/**
 * What the doc tests read out of markdown: relative links (with their #anchor), backticked repo
 * paths, and the anchors GitHub gives a page's headings. Code fences are skipped (commands and
 * samples, not references); inline code is skipped for links.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The markdown a newcomer reads: the top-level pages, docs/, resources/ and every README under src/. */
export function docFiles(root: string): string[] {
  const top = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md'].filter((f) => fs.existsSync(path.join(root, f)));
  const under = (dir: string, keep: (name: string) => boolean) => walk(root, dir).filter((f) => keep(path.basename(f)));
  return [
    ...top,
    ...under('docs', (n) => n.endsWith('.md')),
    ...under('resources', (n) => n.endsWith('.md')),
    ...under('src', (n) => n === 'README.md'),
  ].sort();
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'out', 'dist', 'coverage', 'test-results', '.data']);

/** Repository-relative paths of every file and directory under `dir` (itself included). */
export function walk(root: string, dir = '.'): string[] {
  const out: string[] = [];
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return out;
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const rel = path.posix.join(dir === '.' ? '' : dir, e.name);
    out.push(e.isDirectory() ? `${rel}/` : rel);
    if (e.isDirectory()) out.push(...walk(root, rel));
  }
  return out;
}

export interface Ref {
  line: number;
  target: string;
}

/** The text's lines outside code fences, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((l, i) => {
    const m = /^\s*(```+|~~~+)/.exec(l);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = undefined;
      return;
    }
    if (!fence) out.push({ line: i + 1, text: l });
  });
  return out;
}

/** Links whose target is not a URL with a scheme: `[t](x)`, `![a](x)`, `[r]: x`, `<a href="x">`. */
export function relativeLinks(text: string): Ref[] {
  const out: Ref[] = [];
  for (const { line, text: l } of proseLines(text)) {
    const bare = l.replace(/`[^`]*`/g, '');
    const targets = [
      ...[...bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...bare.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
      ...[...bare.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const t of targets) if (!/^[a-z][a-z0-9+.-]*:/i.test(t)) out.push({ line, target: t });
  }
  return out;
}

export const PATH_PREFIXES = ['src/', 'test/', 'bench/', 'scripts/', 'resources/', 'docs/'];

/** Inline code that is a repository path: starts with one of PATH_PREFIXES and has no space. */
export function backtickedPaths(text: string): Ref[] {
  const out: Ref[] = [];
  for (const { line, text: l } of proseLines(text))
    for (const m of l.matchAll(/`([^`\s]+)`/g)) if (PATH_PREFIXES.some((p) => m[1].startsWith(p))) out.push({ line, target: m[1] });
  return out;
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings' (repeats get -1, -2 as on GitHub) and explicit `id`/`name` ones. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: l } of proseLines(text)) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (h) {
      const base = slug(h[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const m of l.matchAll(/\b(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

/** A backticked path as a pattern over repository paths: `*`, `**`, `?`, `{a,b}`, `<name>` and `…` as wildcards. */
export function pathPattern(p: string): RegExp {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (p.startsWith('**', i)) {
      re += '.*';
      i++;
    } else if (p.startsWith('...', i)) {
      re += '.*';
      i += 2;
    } else if (c === '…') re += '.*';
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '<') {
      const end = p.indexOf('>', i);
      if (end < 0) re += '<';
      else {
        re += '[^/]+';
        i = end;
      }
    } else if (c === '{') {
      const end = p.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${p
          .slice(i + 1, end)
          .split(',')
          .map((s) => s.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
          .join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  // A module named without its extension (`src/main/index`) is a path too.
  return new RegExp(`^${re}(?:\\.[a-z]+)?/?$`);
}

/** `file:line → target (why)` for every relative link of `files` whose file or #anchor does not exist. */
export function deadLinks(root: string, files: string[]): string[] {
  const dead: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (rel: string) => {
    let a = anchorCache.get(rel);
    if (!a) anchorCache.set(rel, (a = anchorsOf(fs.readFileSync(path.join(root, rel), 'utf8'))));
    return a;
  };
  for (const file of files) {
    for (const { line, target } of relativeLinks(fs.readFileSync(path.join(root, file), 'utf8'))) {
      const [rawPath, anchor] = target.split('#', 2);
      const clean = decodeURIComponent(rawPath.split('?')[0]);
      // `/x` is the repository root on GitHub; anything else is relative to the page.
      const rel = clean === '' ? file : clean.startsWith('/') ? clean.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(file), clean));
      const at = `${file}:${line} → ${target}`;
      if (rel.startsWith('../') || !fs.existsSync(path.join(root, rel))) dead.push(`${at} (no such file)`);
      else if (anchor && rel.endsWith('.md') && !anchors(rel).has(anchor.toLowerCase())) dead.push(`${at} (no heading #${anchor} in ${rel})`);
    }
  }
  return dead;
}

/** `file:line → path` for every backticked repository path of `files` that matches nothing in the tree. */
export function deadPaths(root: string, files: string[]): string[] {
  const dead: string[] = [];
  let tree: string[] | undefined;
  for (const file of files) {
    for (const { line, target } of backtickedPaths(fs.readFileSync(path.join(root, file), 'utf8'))) {
      // A position (`file.ts:12`, `file.ts#L12`) or trailing punctuation is not part of the path.
      const p = target.replace(/(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$/, '').replace(/[.,;:)]+$/, '');
      if (/[*?{<…]|\.\.\./.test(p) || !path.posix.extname(p)) {
        tree ??= walk(root);
        const re = pathPattern(p);
        if (!tree.some((t) => re.test(t))) dead.push(`${file}:${line} → ${target}`);
      } else if (!fs.existsSync(path.join(root, p))) dead.push(`${file}:${line} → ${target}`);
    }
  }
  return dead;
}
