/**
 * Inspector windows (issue 17 item 1, desktop): the `inspect:open-window` handler, through the
 * real handler table under Node with the mocked `electron`, opens a native window only for a
 * DevTools or trace viewer page of the connected engine, never for another page or engine.
 *
 * @own-process it registers on the mocked electron's ipcMain, which holds one handler per channel per process.
 */
import { describe, expect, it } from 'vitest';
import { createInspectorOpener, isInspectorUrl } from '../../src/main/inspector-window.js';
import { createHandlers } from '../../src/main/ipc-handlers.js';
import type { HandlerDeps } from '../../src/main/ipc-handlers.js';

const ENGINE = 'http://127.0.0.1:8123';
const DEVTOOLS = `${ENGINE}/devtools-frontend/eyJ.a.b/inspector.html?ws=127.0.0.1%3A8123%2Fdevtools-frontend%2FeyJ.a.b%2Fws`;
const TRACE = `${ENGINE}/trace-viewer/eyJ.a.b/index.html?trace=x`;

function handlers(opened: Array<{ url: string; title: string }>) {
  const openInspector = createInspectorOpener({ engineUrl: async () => ENGINE, openWindow: (url, title) => opened.push({ url, title }) });
  return createHandlers({ openInspector } as unknown as HandlerDeps);
}

describe('inspect:open-window', () => {
  it('opens DevTools and the trace viewer of the connected engine in a window', async () => {
    const opened: Array<{ url: string; title: string }> = [];
    const h = handlers(opened);
    await expect(h['inspect:open-window']({ url: DEVTOOLS, title: 'DevTools — page' })).resolves.toBeNull();
    await expect(h['inspect:open-window']({ url: TRACE, title: 'Trace' })).resolves.toBeNull();
    expect(opened.map((o) => o.url)).toEqual([DEVTOOLS, TRACE]);
  });

  it('refuses any other page, another engine, credentials in the URL', async () => {
    const opened: Array<{ url: string; title: string }> = [];
    const h = handlers(opened);
    for (const url of [
      `${ENGINE}/`,
      `${ENGINE}/browsers/x/live?jwt=t`,
      `http://127.0.0.1:9999/devtools-frontend/eyJ.a.b/inspector.html`,
      `http://evil.example/devtools-frontend/eyJ.a.b/inspector.html`,
      `http://u:p@127.0.0.1:8123/devtools-frontend/eyJ.a.b/inspector.html`,
      `file:///etc/passwd`,
    ]) {
      await expect(h['inspect:open-window']({ url, title: 't' })).rejects.toThrow(/only DevTools and trace viewer pages/);
    }
    expect(opened).toEqual([]);
    expect(isInspectorUrl('not a url', ENGINE)).toBe(false);
  });
});
