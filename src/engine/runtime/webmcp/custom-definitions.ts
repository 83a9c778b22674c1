/**
 * Checks the custom tool definitions a `source` evaluated to (§14.3), as the browser described
 * them (custom-source.ts: plain JSON, the execute function reduced to its `typeof`). Every
 * problem of a batch is named in one 422 `invalid_custom_tools` (a batch is all or nothing).
 * Optional metadata gets Kernel's defaults: `kind` "page", an empty description, an object
 * input schema. `kind` is "page" (runs in the matching document) or "cdp" (runs in the session's
 * jailed tool runner with the REPL's helpers, code-runner/webmcp-tool-runner.ts).
 */
import { DomainError, type ErrorDetail } from '../../../shared/errors/domain-error.js';
import { WEBMCP_ANNOTATION_KEYS, type WebMcpToolMetadata } from '../../../shared/wire/session-webmcp.js';
import { patternProblem } from './url-patterns.js';

/** What the browser reports of one element of the source's array. */
export interface DescribedDefinition {
  notObject?: boolean;
  kind?: unknown;
  match?: unknown;
  tool?: unknown;
  execute?: string;
}

export interface CheckedDefinition {
  /** Position in the source's array: how the page finds its execute function again. */
  index: number;
  kind: 'page' | 'cdp';
  urlPatterns: string[];
  tool: WebMcpToolMetadata;
}

export const MAX_TOOLS_PER_BATCH = 100;
const MAX_NAME_LENGTH = 256;
const MAX_TEXT_LENGTH = 64 * 1024;
const MAX_PATTERNS = 64;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkTool(raw: unknown, at: string, problems: ErrorDetail[]): WebMcpToolMetadata | undefined {
  const problem = (message: string) => void problems.push({ code: 'invalid_field', message: `${at}.${message}` });
  if (!isObject(raw)) return void problem('tool: must be an object with name, description and inputSchema');
  const { name, description, inputSchema, outputSchema, title, annotations } = raw;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) problem(`tool.name: must be a string of 1-${MAX_NAME_LENGTH} characters`);
  if (description !== undefined && (typeof description !== 'string' || description.length > MAX_TEXT_LENGTH))
    problem(`tool.description: must be a string of at most ${MAX_TEXT_LENGTH} characters`);
  if (title !== undefined && (typeof title !== 'string' || title.length > MAX_NAME_LENGTH))
    problem(`tool.title: must be a string of at most ${MAX_NAME_LENGTH} characters`);
  if (inputSchema !== undefined && !isObject(inputSchema)) problem('tool.inputSchema: must be a JSON Schema object');
  if (outputSchema !== undefined && !isObject(outputSchema)) problem('tool.outputSchema: must be a JSON Schema object');
  if (annotations !== undefined && !isObject(annotations)) problem('tool.annotations: must be an object of boolean hints');
  const hints: Record<string, boolean> = {};
  if (isObject(annotations))
    for (const key of WEBMCP_ANNOTATION_KEYS) {
      const v = annotations[key];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') problem(`tool.annotations.${key}: must be a boolean`);
      else hints[key] = v;
    }
  if (problems.length) return undefined;
  return {
    name: name as string,
    description: (description as string | undefined) ?? '',
    inputSchema: (inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    ...(outputSchema !== undefined && { outputSchema: outputSchema as Record<string, unknown> }),
    ...(title !== undefined && { title: title as string }),
    ...(isObject(annotations) && { annotations: hints }),
  };
}

function checkPatterns(match: unknown, at: string, problems: ErrorDetail[]): string[] {
  const patterns = isObject(match) ? match.url_patterns : undefined;
  if (!Array.isArray(patterns) || patterns.length === 0 || patterns.length > MAX_PATTERNS) {
    problems.push({ code: 'invalid_field', message: `${at}.match.url_patterns: must be an array of 1-${MAX_PATTERNS} URL patterns` });
    return [];
  }
  patterns.forEach((p, i) => {
    const why = patternProblem(p);
    if (why) problems.push({ code: 'invalid_field', message: `${at}.match.url_patterns[${i}]: ${why}` });
  });
  return patterns as string[];
}

/** The batch's definitions, checked; a 422 naming every problem otherwise. */
export function checkDefinitions(described: unknown): CheckedDefinition[] {
  if (!Array.isArray(described) || described.length === 0)
    throw DomainError.unprocessable('source must evaluate to a non-empty array of tool definitions', 'invalid_custom_tools');
  if (described.length > MAX_TOOLS_PER_BATCH)
    throw DomainError.unprocessable(`a batch has at most ${MAX_TOOLS_PER_BATCH} tool definitions, this one ${described.length}`, 'invalid_custom_tools');
  const problems: ErrorDetail[] = [];
  const out: CheckedDefinition[] = [];
  const names = new Set<string>();
  (described as DescribedDefinition[]).forEach((d, index) => {
    const at = `source[${index}]`;
    const mine: ErrorDetail[] = [];
    if (!isObject(d) || d.notObject) return void problems.push({ code: 'invalid_field', message: `${at}: must be an object` });
    const kind = d.kind ?? 'page';
    if (kind !== 'page' && kind !== 'cdp') mine.push({ code: 'invalid_field', message: `${at}.kind: must be "page" or "cdp"` });
    if (d.execute !== 'function') mine.push({ code: 'invalid_field', message: `${at}.execute: must be a function` });
    const urlPatterns = checkPatterns(d.match, at, mine);
    const tool = checkTool(d.tool, at, mine);
    if (tool && names.has(tool.name)) mine.push({ code: 'duplicate_name', message: `${at}.tool.name: '${tool.name}' appears twice in the batch` });
    problems.push(...mine);
    if (tool && !mine.length) {
      names.add(tool.name);
      out.push({ index, kind: kind as 'page' | 'cdp', urlPatterns, tool });
    }
  });
  if (problems.length) {
    const first = problems[0].message;
    throw new DomainError(
      422,
      'invalid_custom_tools',
      problems.length === 1 ? first : `${first} (and ${problems.length - 1} more problems)`,
      problems.slice(0, 50),
    );
  }
  return out;
}
