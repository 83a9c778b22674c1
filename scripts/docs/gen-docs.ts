/**
 * `npm run docs`: rewrites the generated block of every generated page (docs-pages.ts) — the
 * configuration table from src/engine/config-options.ts, the API reference from a real engine's
 * `/openapi.json`, the error codes from the source — and leaves the hand-written text around it.
 * Prints which pages changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PAGES } from './docs-pages.js';
import { engineOpenApi } from './engine-openapi.js';
import { replaceBlock } from './generated-block.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const openapi = await engineOpenApi();
for (const page of GENERATED_PAGES) {
  const file = path.join(root, page.file);
  const before = fs.readFileSync(file, 'utf8');
  const after = replaceBlock(before, page.block, page.render(root, openapi));
  if (after !== before) fs.writeFileSync(file, after);
  process.stdout.write(`${page.file}: ${after === before ? 'current' : 'rewritten'}\n`);
}
