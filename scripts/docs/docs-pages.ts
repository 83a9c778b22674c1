/**
 * The generated pages and how each one's block is made: `npm run docs` (gen-docs.ts) writes them,
 * test/docs/generated-pages.test.ts renders them in memory and compares.
 */
import { collectErrors } from './collect-errors.js';
import type { OpenApiDocument } from './engine-openapi.js';
import { renderApi } from './render-api.js';
import { renderConfig } from './render-config.js';
import { renderErrors } from './render-errors.js';

export interface GeneratedPage {
  /** Repository-relative path of the page. */
  file: string;
  /** The marker name of its generated block. */
  block: string;
  render(root: string, openapi: OpenApiDocument): string;
}

export const GENERATED_PAGES: readonly GeneratedPage[] = [
  { file: 'docs/operate/configuration.md', block: 'config', render: () => renderConfig() },
  { file: 'docs/reference/api.md', block: 'api', render: (root, openapi) => renderApi(openapi, root) },
  { file: 'docs/reference/errors.md', block: 'errors', render: (root) => renderErrors(collectErrors(root)) },
];
