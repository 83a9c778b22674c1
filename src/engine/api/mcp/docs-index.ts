/**
 * `search_docs` answers from Browserdeck's own documentation: every Markdown page under the
 * checkout's `docs/`, cut at its headings into sections and ranked by MiniSearch (BM25 with
 * prefix and fuzzy matching). Built on the first search, once per engine. A bundled desktop app
 * carries no `docs/` beside it; it then says so instead of answering.
 */
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';

export interface DocHit {
  /** Repository-relative path and heading anchor, e.g. `docs/use/profiles.md#saving`. */
  path: string;
  title: string;
  text: string;
}

interface Section {
  id: number;
  path: string;
  title: string;
  text: string;
}

/** A section's text longer than this is cut in the answer (the page itself has the rest). */
const SNIPPET_CHARS = 1500;

/** The nearest `docs/` (with `docs/use`) above this module, or null. */
export function findDocsDir(from = path.dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'docs', 'use'))) return path.join(dir, 'docs');
    if (path.dirname(dir) === dir) return null;
  }
}

/** GitHub-style anchor of a heading. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]+/g, '')
    .trim()
    .replace(/ /g, '-');

/** A page cut at its `#`…`###` headings; the text before the first one belongs to the page title. */
export function sectionsOf(relPath: string, markdown: string): Array<Omit<Section, 'id'>> {
  const out: Array<Omit<Section, 'id'>> = [];
  let inFence = false;
  let title = relPath;
  let anchor = '';
  let lines: string[] = [];
  const flush = (): void => {
    const text = lines.join('\n').trim();
    if (text) out.push({ path: anchor ? `${relPath}#${anchor}` : relPath, title, text });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const h = !inFence && /^(#{1,3})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      title = h[2].trim();
      anchor = h[1].length === 1 ? '' : anchorOf(title);
    } else lines.push(line);
  }
  flush();
  return out;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => path.join(e.parentPath, e.name));
}

export class DocsIndex {
  private built?: Promise<{ search: MiniSearch<Section>; sections: Section[] } | null>;

  constructor(private readonly docsDir: string | null = findDocsDir()) {}

  /** The best sections for a query, best first; null when this engine has no docs to search. */
  async search(query: string, limit = 8): Promise<DocHit[] | null> {
    const index = await (this.built ??= this.build());
    if (!index) return null;
    return index.search
      .search(query, { prefix: true, fuzzy: 0.2, boost: { title: 2 } })
      .slice(0, limit)
      .map((r) => {
        const s = index.sections[r.id as number];
        return { path: s.path, title: s.title, text: s.text.length > SNIPPET_CHARS ? `${s.text.slice(0, SNIPPET_CHARS)} …` : s.text };
      });
  }

  private async build(): Promise<{ search: MiniSearch<Section>; sections: Section[] } | null> {
    if (!this.docsDir) return null;
    const root = path.dirname(this.docsDir);
    const sections: Section[] = [];
    for (const file of (await markdownFiles(this.docsDir)).sort()) {
      const rel = path.relative(root, file).split(path.sep).join('/');
      for (const s of sectionsOf(rel, await fs.readFile(file, 'utf8'))) sections.push({ id: sections.length, ...s });
    }
    const search = new MiniSearch<Section>({ fields: ['title', 'text'], storeFields: [] });
    search.addAll(sections);
    return { search, sections };
  }
}
