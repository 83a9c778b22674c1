/**
 * A tiny local web server for the sessions-extras tests: a page that counts clicks, a page
 * that animates (so a screencast keeps producing frames), and a page that stores a cookie,
 * localStorage and IndexedDB on demand and reports what it finds.
 */
import puppeteer, { type Page } from 'puppeteer-core';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

const PAGES: Record<string, string> = {
  '/clicks': `<!doctype html><title>clicks</title><body style="margin:0">
<button id="b" style="position:absolute;left:0;top:0;width:100vw;height:100vh;font-size:40px">0</button>
<script>window.clicks=0;document.getElementById('b').addEventListener('click',()=>{window.clicks++;document.getElementById('b').textContent=String(window.clicks);document.title='clicks '+window.clicks;});
let i=0;setInterval(()=>{document.body.style.background=(i++%2)?'#fff':'#eee'},50);</script></body>`,
  '/animated': `<!doctype html><title>animated</title><body style="margin:0;background:#fff">
<div id="d" style="width:200px;height:200px;background:#c00"></div>
<script>let i=0;setInterval(()=>{document.getElementById('d').style.marginLeft=(i++%300)+'px'},30);</script></body>`,
  '/type': `<!doctype html><title>type</title><body style="margin:0">
<input id="i" style="position:absolute;left:0;top:0;width:100vw;height:100vh;font-size:40px" autofocus>
<script>window.enters=0;document.getElementById('i').addEventListener('keydown',(e)=>{if(e.key==='Enter')window.enters++;});
let n=0;setInterval(()=>{document.body.style.background=(n++%2)?'#fff':'#eee'},50);</script></body>`,
  '/hello': `<!doctype html><title>Hello from the test page</title><body><h1 id="h">hello</h1></body>`,
  '/storage': `<!doctype html><title>storage</title><body><script>
window.writeState = async (v) => {
  document.cookie = 'bd_cookie=' + v + '; max-age=86400; path=/';
  localStorage.setItem('bd_local', v);
  await new Promise((res, rej) => { const r = indexedDB.open('bd_db', 1); r.onupgradeneeded = () => r.result.createObjectStore('kv');
    r.onsuccess = () => { const t = r.result.transaction('kv', 'readwrite'); t.objectStore('kv').put(v, 'k'); t.oncomplete = () => { r.result.close(); res(); }; t.onerror = rej; }; r.onerror = rej; });
};
window.readState = async () => {
  const cookie = (document.cookie.match(/(?:^|; )bd_cookie=([^;]*)/) || [])[1] || null;
  const local = localStorage.getItem('bd_local');
  const idb = await new Promise((res) => { const r = indexedDB.open('bd_db', 1); r.onupgradeneeded = () => r.result.createObjectStore('kv');
    r.onsuccess = () => { const t = r.result.transaction('kv', 'readonly'); const g = t.objectStore('kv').get('k'); g.onsuccess = () => { r.result.close(); res(g.result ?? null); }; }; r.onerror = () => res(null); });
  return { cookie, local, idb };
};
</script></body>`,
};

export type TestPages = LocalServer;

export function startTestPages(): Promise<TestPages> {
  return startLocalServer(PAGES);
}

/** What the storage page finds: its cookie, localStorage item and IndexedDB value. */
export type StorageState = { cookie: string | null; local: string | null; idb: string | null };

/** Opens the storage page in a session's browser over CDP (a new tab) and runs `fn` there. */
export async function onStoragePage<T>(pages: TestPages, cdpUrl: string, fn: (page: Page) => Promise<T>): Promise<T> {
  const b = await puppeteer.connect({ browserWSEndpoint: cdpUrl });
  try {
    const page = await b.newPage();
    await page.goto(`${pages.url}/storage`);
    return await fn(page);
  } finally {
    await b.disconnect();
  }
}

/** What the storage page (served above) defines on its window. */
type StorageWindow = { readState(): Promise<StorageState>; writeState(v: string): Promise<void> };

/** The storage page's state in a session's browser. */
export const readStorage = (pages: TestPages, cdpUrl: string) =>
  onStoragePage<StorageState>(pages, cdpUrl, (p) => p.evaluate(() => (window as unknown as StorageWindow).readState()));

/** Stores `v` as cookie, localStorage item and IndexedDB value in a session's browser. */
export const writeStorage = (pages: TestPages, cdpUrl: string, v: string) =>
  onStoragePage(pages, cdpUrl, (p) => p.evaluate((x) => (window as unknown as StorageWindow).writeState(x), v));
