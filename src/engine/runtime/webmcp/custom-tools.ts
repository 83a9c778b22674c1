/**
 * A session's custom WebMCP tools (§14.3): definitions added in namespaced batches, kept in
 * memory for as long as the session runs (like the page tools they sit beside). A batch is
 * evaluated in the browser first (custom-source.ts), checked (custom-definitions.ts), and only
 * then applied in one synchronous step — atomic, also against a concurrent batch:
 * `force_overwrite_namespace` swaps the namespace's tools for the batch, otherwise the batch
 * joins them (a name already in the namespace is a 409; delete that tool first).
 */
import { randomBytes } from 'node:crypto';
import type { SessionHandle } from '../session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { WebMcpCustomTool } from '../../../shared/wire/session-webmcp.js';
import { checkDefinitions } from './custom-definitions.js';
import { describeSource } from './custom-source.js';
import { matchesAny } from './url-patterns.js';
import type { Slot } from '../session/session-scope.js';
import { usableBwrap } from '../sandbox/bwrap.js';

/** One batch's source, shared by its tools (each invocation evaluates it again in the page). */
export interface CustomBatch {
  source: string;
  bytes: number;
}

export interface CustomTool {
  definition: WebMcpCustomTool;
  batch: CustomBatch;
  /** Position of the definition in the batch's array. */
  index: number;
}

/** Per session, so that tenants cannot grow the engine's memory without bound. */
export const MAX_CUSTOM_TOOLS = 256;
export const MAX_CUSTOM_SOURCE_BYTES = 24_000_000;

/** `ct_` then a letter and 23 lowercase letters or digits, the shape Kernel's ids have. */
function customToolId(): string {
  const bytes = randomBytes(24);
  return `ct_${String.fromCharCode(97 + (bytes[0] % 26))}${[...bytes.subarray(1)].map((b) => (b % 36).toString(36)).join('')}`;
}

export class CustomTools {
  private readonly tools = new Map<string, CustomTool>();

  constructor(private readonly handle: SessionHandle) {}

  /** The registry when the session has one (listing never creates it). */
  static existing(handle: SessionHandle): CustomTools | undefined {
    return handle.scope.peek(CustomToolsSlot);
  }

  list(): WebMcpCustomTool[] {
    return [...this.tools.values()].map((t) => t.definition);
  }

  get(id: string): CustomTool | undefined {
    return this.tools.get(id);
  }

  get size(): number {
    return this.tools.size;
  }

  /** The tools whose patterns match any of a tab's document URLs, in the order they were added. */
  matchingAny(urls: string[]): CustomTool[] {
    return [...this.tools.values()].filter((t) => urls.some((url) => matchesAny(t.definition.match.url_patterns, url)));
  }

  delete(id: string): boolean {
    return this.tools.delete(id);
  }

  /**
   * Evaluates, checks and adds a batch; answers the batch's definitions. `sourceTimeoutMs`: how
   * long the source may take to evaluate (config.customToolSourceTimeoutMs; default 10 s).
   */
  async add(namespace: string, source: string, overwrite: boolean, sourceTimeoutMs?: number): Promise<WebMcpCustomTool[]> {
    const checked = checkDefinitions(await describeSource(this.handle, source, sourceTimeoutMs));
    if (checked.some((d) => d.kind === 'cdp') && !(await usableBwrap()))
      throw DomainError.unprocessable(
        'CDP-backed tools (kind "cdp") run in the session\'s jail, which is not usable on this engine; use kind "page"',
        'invalid_custom_tools',
      );
    const batch: CustomBatch = { source, bytes: Buffer.byteLength(source) };
    // From here on synchronous: the batch lands whole or not at all.
    const kept = [...this.tools.values()].filter((t) => !(overwrite && t.definition.namespace === namespace));
    const taken = new Set(kept.filter((t) => t.definition.namespace === namespace).map((t) => t.definition.tool.name));
    const clash = checked.find((d) => taken.has(d.tool.name));
    if (clash)
      throw DomainError.conflict(
        `namespace '${namespace}' already has a tool named '${clash.tool.name}': delete it first, or send force_overwrite_namespace to replace the namespace`,
        'custom_tool_exists',
      );
    if (kept.length + checked.length > MAX_CUSTOM_TOOLS)
      throw DomainError.conflict(`a browser has at most ${MAX_CUSTOM_TOOLS} custom tools; delete some first`, 'custom_tools_limit');
    const batches = new Set(kept.map((t) => t.batch));
    const bytes = [...batches].reduce((n, b) => n + b.bytes, batch.bytes);
    if (bytes > MAX_CUSTOM_SOURCE_BYTES)
      throw DomainError.conflict(
        `a browser keeps at most ${MAX_CUSTOM_SOURCE_BYTES} bytes of custom tool source; delete some tools first`,
        'custom_tools_limit',
      );
    const added = checked.map((d): CustomTool => ({
      definition: { id: customToolId(), kind: d.kind, match: { url_patterns: d.urlPatterns }, namespace, tool: d.tool },
      batch,
      index: d.index,
    }));
    if (overwrite) for (const [id, t] of this.tools) if (t.definition.namespace === namespace) this.tools.delete(id);
    for (const t of added) this.tools.set(t.definition.id, t);
    return added.map((t) => t.definition);
  }
}

/** The session's custom tools: `handle.scope.get(CustomToolsSlot)`, made on the first add, gone with the session. */
export const CustomToolsSlot: Slot<CustomTools> = { name: 'custom-tools', create: (scope) => new CustomTools(scope.handle) };
