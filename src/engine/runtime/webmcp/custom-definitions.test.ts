import { describe, expect, it } from 'vitest';
import { checkDefinitions } from './custom-definitions.js';
import { DomainError } from '../../../shared/errors/domain-error.js';

const def = (over: Record<string, unknown> = {}) => ({
  match: { url_patterns: ['https://shop.example/*'] },
  tool: { name: 'lookup', description: 'looks up', inputSchema: { type: 'object' } },
  execute: 'function',
  ...over,
});

function problems(described: unknown): string[] {
  try {
    checkDefinitions(described);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(422);
    return (err as DomainError).details.length ? (err as DomainError).details.map((d) => d.message) : [(err as DomainError).message];
  }
  return [];
}

describe('custom tool definitions', () => {
  it('fills Kernel defaults: kind page, empty description, object input schema', () => {
    const [d] = checkDefinitions([{ match: { url_patterns: ['*'] }, tool: { name: 'lookup' }, execute: 'function' }]);
    expect(d).toEqual({
      index: 0,
      kind: 'page',
      urlPatterns: ['*'],
      tool: { name: 'lookup', description: '', inputSchema: { type: 'object', properties: {} } },
    });
  });

  it('keeps the known metadata and drops unknown annotation keys', () => {
    const [d] = checkDefinitions([
      def({
        tool: { name: 'n', description: 'd', inputSchema: {}, outputSchema: { type: 'string' }, title: 'T', annotations: { readOnlyHint: true, bogus: 1 } },
      }),
    ]);
    expect(d.tool).toEqual({ name: 'n', description: 'd', inputSchema: {}, outputSchema: { type: 'string' }, title: 'T', annotations: { readOnlyHint: true } });
  });

  it('refuses an empty or non-array batch', () => {
    expect(problems([])).toHaveLength(1);
    expect(problems({})).toHaveLength(1);
    expect(problems(null)).toHaveLength(1);
  });

  it('names every problem of a batch', () => {
    const found = problems([
      def(),
      'not an object',
      def({ execute: 'undefined' }),
      def({ match: { url_patterns: [] } }),
      def({ tool: { name: '' } }),
      def({ kind: 'cdp', tool: { name: 'on-cdp' } }),
      def({ kind: 'worker' }),
      def({ tool: { name: 'x', annotations: { readOnlyHint: 'yes' } } }),
      def({ match: { url_patterns: ['https://a b'] } }),
    ]);
    expect(found.join('\n')).toMatch(/source\[1\]: must be an object/);
    expect(found.join('\n')).toMatch(/source\[2\]\.execute/);
    expect(found.join('\n')).toMatch(/source\[3\]\.match\.url_patterns/);
    expect(found.join('\n')).toMatch(/source\[4\]\.tool\.name/);
    // A CDP-backed tool is a tool like any other.
    expect(found.join('\n')).not.toMatch(/source\[5\]/);
    expect(found.join('\n')).toMatch(/source\[6\]\.kind/);
    expect(found.join('\n')).toMatch(/source\[7\]\.tool\.annotations\.readOnlyHint/);
    expect(found.join('\n')).toMatch(/source\[8\]\.match\.url_patterns\[0\]/);
    expect(found.join('\n')).not.toMatch(/source\[0\]/);
  });

  it('takes page- and CDP-backed tools, page by default', () => {
    expect(checkDefinitions([def({ kind: 'cdp', tool: { name: 'a' } }), def({ tool: { name: 'b' } })]).map((d) => d.kind)).toEqual(['cdp', 'page']);
  });

  it('refuses one name twice in a batch', () => {
    expect(problems([def(), def()]).join('\n')).toMatch(/appears twice/);
  });
});
