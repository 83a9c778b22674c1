/**
 * Read-only CDP (`GET /browsers/{id}/devtools?…&mode=read`, for support staff who must look
 * without touching): an allow-list of commands that only read the page, so a command nobody
 * thought of (a new domain, a new setter) is refused rather than let through. Evaluations are
 * kept but forced to `throwOnSideEffect` — V8's own side-effect check, the one DevTools' eager
 * console preview uses — so `document.title` answers and `document.title = 'x'` throws.
 */

/** Domains whose enable/disable and get/request/describe/search-style commands only read. */
const READ_DOMAINS = new Set([
  'Accessibility',
  'Animation',
  'Audits',
  'CacheStorage',
  'CSS',
  'Console',
  'Debugger',
  'DOM',
  'DOMDebugger',
  'DOMSnapshot',
  'DOMStorage',
  'HeapProfiler',
  'IndexedDB',
  'Inspector',
  'LayerTree',
  'Log',
  'Media',
  'Memory',
  'Network',
  'Overlay',
  'Page',
  'Performance',
  'PerformanceTimeline',
  'Preload',
  'Profiler',
  'Runtime',
  'Security',
  'ServiceWorker',
  'Storage',
  'Target',
  'WebAudio',
]);

const READ_VERB =
  /^(enable|disable|get[A-Z]\w*|request[A-Z]\w*|describe[A-Z]\w*|query[A-Z]\w*|search[A-Z]\w*|resolve[A-Z]\w*|push[A-Z]\w*|collect[A-Z]\w*|take[A-Z]\w*|release[A-Z]\w*)$/;

/** Commands outside that pattern that still only read (or only change the inspector's own view). */
const ALSO_READ = new Set([
  'CSS.trackComputedStyleUpdates',
  'CSS.startRuleUsageTracking',
  'CSS.stopRuleUsageTracking',
  'DOM.performSearch',
  'DOM.discardSearchResults',
  'DOM.highlightNode',
  'DOM.hideHighlight',
  // With Debugger enabled a page's own `debugger;` statement pauses it; resuming only lets it run on as it would without DevTools.
  'Debugger.resume',
  'Debugger.setAsyncCallStackDepth',
  'Debugger.setBlackboxPatterns',
  'Debugger.setBlackboxExecutionContexts',
  'HeapProfiler.startTrackingHeapObjects',
  'HeapProfiler.stopTrackingHeapObjects',
  'HeapProfiler.startSampling',
  'HeapProfiler.stopSampling',
  'IO.read',
  'IO.close',
  'Log.startViolationsReport',
  'Log.stopViolationsReport',
  'Network.setAttachDebugStack',
  'Network.loadNetworkResource',
  'Overlay.highlightNode',
  'Overlay.highlightRect',
  'Overlay.highlightQuad',
  'Overlay.highlightFrame',
  'Overlay.hideHighlight',
  'Overlay.setInspectMode',
  'Overlay.setShowViewportSizeOnResize',
  'Page.captureScreenshot',
  'Page.startScreencast',
  'Page.stopScreencast',
  'Page.screencastFrameAck',
  'Page.setLifecycleEventsEnabled',
  'Profiler.start',
  'Profiler.stop',
  'Profiler.setSamplingInterval',
  'Profiler.startPreciseCoverage',
  'Profiler.stopPreciseCoverage',
  'Runtime.evaluate',
  'Runtime.callFunctionOn',
  'Runtime.globalLexicalScopeNames',
  'Runtime.runIfWaitingForDebugger',
  'Runtime.setAsyncCallStackDepth',
  'Runtime.discardConsoleEntries',
  'Target.setAutoAttach',
  'Target.setDiscoverTargets',
  'Target.detachFromTarget',
  'Tracing.start',
  'Tracing.end',
  'Tracing.getCategories',
]);

/** Whether `method` may run in read-only mode (evaluations are forced side-effect free by the guard). */
export function readOnlyAllows(method: string): boolean {
  if (ALSO_READ.has(method)) return true;
  const dot = method.indexOf('.');
  if (dot < 1) return false;
  return READ_DOMAINS.has(method.slice(0, dot)) && READ_VERB.test(method.slice(dot + 1));
}

const SIDE_EFFECT_CHECKED = new Set(['Runtime.evaluate', 'Runtime.callFunctionOn']);

/**
 * One client message in read-only mode: what to forward to the browser, or the error reply to
 * send back instead. Anything that is not a JSON command object is refused.
 */
export function guardReadOnlyCommand(text: string): { forward: string } | { reply: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { reply: JSON.stringify({ error: { code: -32700, message: 'read-only DevTools: message is not JSON' } }) };
  }
  // `null`, a number, a string or an array is JSON but no command: refused like a command without a method.
  const msg: { id?: unknown; method?: unknown; sessionId?: unknown; params?: unknown } =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  const method = typeof msg.method === 'string' ? msg.method : '';
  const refuse = (message: string) => ({
    reply: JSON.stringify({ id: msg.id, ...(typeof msg.sessionId === 'string' ? { sessionId: msg.sessionId } : {}), error: { code: -32000, message } }),
  });
  if (!method || !readOnlyAllows(method)) return refuse(`read-only DevTools: ${method || 'this message'} is refused (it could change the page)`);
  if (!SIDE_EFFECT_CHECKED.has(method)) return { forward: text };
  const params = msg.params && typeof msg.params === 'object' ? (msg.params as Record<string, unknown>) : {};
  // A side-effect check cannot hold while the evaluation may pause in the debugger or run past it.
  return { forward: JSON.stringify({ ...msg, params: { ...params, throwOnSideEffect: true, awaitPromise: false } }) };
}
