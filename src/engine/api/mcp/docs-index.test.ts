import { describe, expect, it } from 'vitest';
import { DocsIndex, findDocsDir, sectionsOf } from './docs-index.js';

describe('sectionsOf', () => {
  it('cuts a page at its headings, with anchors, and ignores # lines in code fences', () => {
    const md = '# Profiles\nintro\n## Saving a profile\nsave_changes\n```sh\n# not a heading\n```\n### Load it\nload';
    expect(sectionsOf('docs/use/profiles.md', md)).toEqual([
      { path: 'docs/use/profiles.md', title: 'Profiles', text: 'intro' },
      { path: 'docs/use/profiles.md#saving-a-profile', title: 'Saving a profile', text: 'save_changes\n```sh\n# not a heading\n```' },
      { path: 'docs/use/profiles.md#load-it', title: 'Load it', text: 'load' },
    ]);
  });
});

describe('DocsIndex', () => {
  it("finds the checkout's docs and ranks a page about the query first among its hits", async () => {
    const dir = findDocsDir();
    expect(dir).toMatch(/docs$/);
    const hits = await new DocsIndex(dir).search('live view human take over');
    expect(hits?.length).toBeGreaterThan(0);
    expect(hits!.slice(0, 3).some((h) => h.path.startsWith('docs/use/live-view.md'))).toBe(true);
  });

  it('says it has nothing to search without a docs directory', async () => {
    expect(await new DocsIndex(null).search('anything')).toBeNull();
  });
});
