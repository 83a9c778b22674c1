/** Kernel's `search_docs`, answered from Browserdeck's own docs/ tree (`docs-index.ts`). */
import { z } from 'zod';
import { defineTool, textResult, ToolFailure, type ToolDef } from './tool.js';

const searchDocs = defineTool({
  name: 'search_docs',
  description:
    "Search Browserdeck's documentation (using browsers, profiles, proxies, apps, replays, live view, telemetry, the API reference, running an engine). Returns the best matching sections with their page paths.",
  kind: 'read',
  input: { query: z.string().min(1).max(400).describe('What to look for, in plain words, e.g. "save a profile after login".') },
  async run({ query }, { docs }) {
    const hits = await docs.search(query);
    if (!hits) throw new ToolFailure('docs_unavailable', 'this engine was installed without its docs/ directory');
    if (!hits.length) return textResult('No results found for your query.');
    return textResult(hits.map((h, i) => `## ${i + 1}. ${h.title}\n${h.path}\n\n${h.text}`).join('\n\n---\n\n'));
  },
});

export const docsTools: ToolDef[] = [searchDocs];
