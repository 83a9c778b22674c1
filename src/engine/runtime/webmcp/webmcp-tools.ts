/**
 * The WebMCP operations every entry point shares (§14.1, §14.2): the browser-wide snapshot —
 * the tools pages registered (cdp/webmcp-hub.ts) and the custom tools (§14.3) matched on each
 * tab's top-level document — and one invocation by `tool_ref`. The HTTP routes
 * (api/session-webmcp.ts) and `webmcp.*` inside Playwright execute and the REPL
 * (webmcp-bridge.ts) both call these, so they answer alike.
 *
 * A custom tool's ref names (definition, tab, top-level document): the tab navigating to another
 * document ends it like a page tool's, and a tab navigating to a matching URL gets a new one. A
 * tool matches a tab when its top-level document or any of its frames (out-of-process ones
 * too) matches, and is listed once per tab.
 */
import { randomBytes } from 'node:crypto';
import type { SessionHandle } from '../session/session-handle.js';
import type { Slot } from '../session/session-scope.js';
import { WebMcpHubSlot, type WebMcpHub, type LiveTool } from '../cdp/webmcp-hub.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { WebMcpInvocationResult, WebMcpTool } from '../../../shared/wire/session-webmcp.js';
import { CustomTools } from './custom-tools.js';
import { invokeCdpCustomTool, invokeCustomTool, type CdpToolRunner } from './custom-invoke.js';
import { matchesAny, withoutFragment } from './url-patterns.js';

const STATUS: Record<string, WebMcpInvocationResult['status']> = { Completed: 'completed', Success: 'completed', Canceled: 'canceled', Error: 'error' };

interface CustomRef {
  toolId: string;
  tabId: string;
  loaderId: string;
}

const MAX_CUSTOM_REFS = 4096;

/** The session's custom tool refs: one per (definition, tab, document), stable across snapshots. */
const CustomRefsSlot: Slot<{ byRef: Map<string, CustomRef>; byKey: Map<string, string> }> = {
  name: 'webmcp-tools',
  create: () => ({ byRef: new Map<string, CustomRef>(), byKey: new Map<string, string>() }),
};

function refsOf(handle: SessionHandle) {
  return handle.scope.get(CustomRefsSlot);
}

function customRef(handle: SessionHandle, ref: CustomRef): string {
  const refs = refsOf(handle);
  const key = `${ref.toolId}\u0000${ref.tabId}\u0000${ref.loaderId}`;
  let id = refs.byKey.get(key);
  if (!id) {
    // Refs of documents long gone pile up otherwise; a dropped live one is listed anew.
    if (refs.byRef.size >= MAX_CUSTOM_REFS) {
      refs.byRef.clear();
      refs.byKey.clear();
    }
    id = `wc_${randomBytes(12).toString('base64url')}`;
    refs.byKey.set(key, id);
    refs.byRef.set(id, ref);
  }
  return id;
}

function annotationsOf(a: LiveTool['tool']['annotations']): WebMcpTool['tool']['annotations'] {
  if (!a) return undefined;
  return {
    ...(a.autosubmit !== undefined && { autosubmit: a.autosubmit }),
    ...(a.consequential !== undefined && { consequentialHint: a.consequential }),
    ...(a.readOnly !== undefined && { readOnlyHint: a.readOnly }),
    ...(a.untrustedContent !== undefined && { untrustedContentHint: a.untrustedContent }),
  };
}

/** Every tool of the session right now; `excludeCustom` leaves out the custom ones. */
export async function listTools(handle: SessionHandle, excludeCustom = false): Promise<WebMcpTool[]> {
  const hub = handle.scope.get(WebMcpHubSlot);
  const { tools, targets } = await hub.list();
  const frameUrls = new Map<string, Promise<Map<string, string>>>();
  const urlsOf = (sessionId: string) => {
    let p = frameUrls.get(sessionId);
    if (!p) frameUrls.set(sessionId, (p = hub.frameUrls(sessionId)));
    return p;
  };
  const windows = new Map<string, Promise<number>>();
  const windowOf = (tabId: string) => {
    let w = windows.get(tabId);
    if (!w) windows.set(tabId, (w = hub.windowOf(tabId)));
    return w;
  };
  const pageTools = tools.map(async (t): Promise<WebMcpTool | undefined> => {
    const tab = targets.get(t.tabId);
    if (!tab) return undefined;
    // A page target's id is its main frame's id: anything else is a frame inside the tab.
    const frame = t.tool.frameId === t.tabId ? null : { frame_id: hub.numberOf(t.tool.frameId), url: (await urlsOf(t.sessionId)).get(t.tool.frameId) ?? '' };
    return {
      tool_ref: t.ref,
      tool: {
        name: t.tool.name,
        description: t.tool.description ?? '',
        inputSchema: t.tool.inputSchema ?? { type: 'object', properties: {} },
        ...(t.tool.annotations && { annotations: annotationsOf(t.tool.annotations) }),
      },
      source: {
        window_id: await windowOf(t.tabId),
        tab_id: hub.numberOf(t.tabId),
        page_url: withoutFragment(tab.url),
        page_title: tab.title,
        frame: frame && { ...frame, url: withoutFragment(frame.url) },
      },
    };
  });
  const registry = excludeCustom ? undefined : CustomTools.existing(handle);
  const customTools = registry?.size
    ? [...targets.values()]
        .filter((tab) => tab.type === 'page')
        .map(async (tab): Promise<WebMcpTool[]> => {
          const docs = await hub.documentsOf(tab.targetId);
          if (!docs) return [];
          const [top] = docs;
          const source = {
            window_id: await windowOf(tab.targetId),
            tab_id: hub.numberOf(tab.targetId),
            page_url: withoutFragment(top.url),
            page_title: tab.title,
            frame: null,
            target_id: tab.targetId,
          };
          // Matched on the top-level document or any frame; exposed once, on the top-level document.
          return registry.matchingAny(docs.map((d) => d.url)).map((t) => ({
            tool_ref: customRef(handle, { toolId: t.definition.id, tabId: tab.targetId, loaderId: top.loaderId }),
            tool: t.definition.tool,
            source: { ...source, custom: { id: t.definition.id, namespace: t.definition.namespace } },
          }));
        })
    : [];
  const all = [...(await Promise.all(pageTools)), ...(await Promise.all(customTools)).flat()];
  return all
    .filter((t): t is WebMcpTool => !!t)
    .sort((a, b) => a.source.tab_id - b.source.tab_id || (a.source.frame?.frame_id ?? 0) - (b.source.frame?.frame_id ?? 0));
}

function toolNotFound(ref: string): DomainError {
  return new DomainError(
    404,
    'tool_not_found',
    `no live WebMCP tool '${ref}': its document closed or navigated, it was unregistered or deleted, or the browser restarted; list the tools again`,
  );
}

/**
 * Invokes a tool by ref and waits for its terminal result. Throws 404 `tool_not_found` for a
 * ref that is not live, OutcomeUnknown (the caller's 504) when the result cannot be observed.
 * The session is held active while the tool runs (the inactivity timeout does not end it).
 * `cdpRunner`: where the session's CDP-backed custom tools run (made only when one is invoked).
 */
export async function invokeTool(
  handle: SessionHandle,
  ref: string,
  input: Record<string, unknown>,
  timeoutSec: number,
  cdpRunner: () => CdpToolRunner,
): Promise<WebMcpInvocationResult> {
  const hub = handle.scope.get(WebMcpHubSlot);
  await hub.list();
  const timeoutMs = timeoutSec * 1000;
  const release = handle.holdActive();
  try {
    const r = ref.startsWith('wc_') ? await invokeCustom(handle, hub, ref, input, timeoutMs, cdpRunner) : await invokePageTool(hub, ref, input, timeoutMs);
    const result: WebMcpInvocationResult = { invocation_id: r.invocationId, status: STATUS[r.status] ?? 'error' };
    if (r.errorText !== undefined) result.error_text = r.errorText;
    if (r.output !== undefined) result.output = r.output;
    return result;
  } finally {
    release();
  }
}

function invokePageTool(hub: WebMcpHub, ref: string, input: Record<string, unknown>, timeoutMs: number) {
  const tool = hub.tool(ref);
  if (!tool) throw toolNotFound(ref);
  return hub.invoke(tool, input, timeoutMs);
}

async function invokeCustom(
  handle: SessionHandle,
  hub: WebMcpHub,
  ref: string,
  input: Record<string, unknown>,
  timeoutMs: number,
  cdpRunner: () => CdpToolRunner,
) {
  const live = handle.scope.peek(CustomRefsSlot)?.byRef.get(ref);
  const registry = CustomTools.existing(handle);
  const tool = live && registry?.get(live.toolId);
  if (!live || !registry || !tool) throw toolNotFound(ref);
  // The ref's top-level document must still be the tab's, and one of its documents must still
  // match (the tab or a frame may have navigated); the tool runs in the first that does.
  const docs = await hub.documentsOf(live.tabId);
  const doc = docs?.[0].loaderId === live.loaderId ? docs.find((d) => matchesAny(tool.definition.match.url_patterns, d.url)) : undefined;
  if (!doc) throw toolNotFound(ref);
  if (tool.definition.kind === 'cdp') return invokeCdpCustomTool(cdpRunner(), live.tabId, tool, input, timeoutMs);
  return invokeCustomTool(hub, { sessionId: doc.sessionId, frameId: doc.frameId }, tool, input, timeoutMs, handle.signal);
}
