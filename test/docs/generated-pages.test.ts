/**
 * Issue 27: the generated reference pages are whole and current. Against a real engine's live
 * `/openapi.json`: every route it serves appears in docs/reference/api.md, and every generated
 * page (docs/operate/configuration.md, docs/reference/api.md, docs/reference/errors.md) equals what
 * `npm run docs` would write now — rendered in memory with the same code (scripts/docs/). A failure
 * means: run `npm run docs` and commit the pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { GENERATED_PAGES } from '../../scripts/docs/docs-pages.js';
import type { OpenApiDocument } from '../../scripts/docs/engine-openapi.js';
import { replaceBlock } from '../../scripts/docs/generated-block.js';
import { operationsOf, routeTitle } from '../../scripts/docs/render-api.js';

const root = path.resolve(import.meta.dirname, '../..');
let te: TestEngine;
let openapi: OpenApiDocument;

beforeAll(async () => {
  te = await startTestEngine();
  const res = await te.api('/openapi.json');
  expect(res.status).toBe(200);
  openapi = (await res.json()) as OpenApiDocument;
});
afterAll(async () => {
  await te?.stop();
});

describe('docs/reference/api.md', () => {
  it('names every route of the live /openapi.json', () => {
    const page = fs.readFileSync(path.join(root, 'docs/reference/api.md'), 'utf8');
    const headings = new Set(page.split('\n').filter((l) => l.startsWith('### ')));
    const routes = operationsOf(openapi).map(routeTitle);
    expect(routes.length).toBeGreaterThan(100);
    expect(routes.filter((r) => !headings.has(`### ${r}`))).toEqual([]);
  });
});

describe('the generated pages', () => {
  it.each(GENERATED_PAGES.map((p) => [p.file, p] as const))('%s is what `npm run docs` writes now', (file, page) => {
    const current = fs.readFileSync(path.join(root, file), 'utf8');
    expect(replaceBlock(current, page.block, page.render(root, openapi)), `${file} is stale: run \`npm run docs\``).toBe(current);
  });
});
