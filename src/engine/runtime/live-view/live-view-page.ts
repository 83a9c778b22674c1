/**
 * The live-view page: one self-contained HTML document (no external assets, so it works
 * offline and under a strict CSP) that connects to `<same path>/ws<same query>`, draws the
 * screencast frames on a canvas scaled to the window, forwards mouse, wheel and keyboard in
 * page CSS pixels, shows the tab's title/URL and viewport size, and draws the cursor overlay
 * the server tells it about. `window.__liveView` exposes counters for diagnostics and tests.
 */

const STYLE = `
html,body{margin:0;height:100%;background:#111;color:#ddd;font:12px system-ui,sans-serif;overflow:hidden}
#bar{position:fixed;top:0;left:0;right:0;height:24px;display:flex;gap:12px;align-items:center;padding:0 8px;background:#1d1d1d;border-bottom:1px solid #333;white-space:nowrap}
#bar .grow{flex:1;overflow:hidden;text-overflow:ellipsis}
#state{color:#e0a000}#state.live{color:#4caf50}#state.gone{color:#e05050}
#ro{display:none;background:#444;padding:1px 6px;border-radius:3px}
#stage{position:absolute;top:25px;left:0;right:0;bottom:0;display:flex;align-items:center;justify-content:center}
#wrap{position:relative;line-height:0}
canvas{max-width:100vw;max-height:calc(100vh - 25px);outline:none;background:#000}
#cursor{position:absolute;width:14px;height:20px;pointer-events:none;display:none}
`;

const SCRIPT = `
(() => {
  const q = new URLSearchParams(location.search);
  const readOnly = q.get('readOnly') === 'true' || q.get('readonly') === 'true';
  const canvas = document.getElementById('screen'), g = canvas.getContext('2d');
  const cursorEl = document.getElementById('cursor');
  const $ = (id) => document.getElementById(id);
  const lv = (window.__liveView = { frames: 0, sent: 0, connected: false, ended: false, page: null, meta: null, cursor: { visible: true } });
  if (readOnly) { $('ro').style.display = 'inline'; canvas.style.cursor = 'default'; }
  const wsUrl = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + location.pathname.replace(/\\/$/, '') + '/ws' + location.search;
  let ws, pending = null, drawing = false;
  const setState = (text, cls) => { const s = $('state'); s.textContent = text; s.className = cls || ''; };

  function connect() {
    ws = new WebSocket(wsUrl);
    ws.onopen = () => { lv.connected = true; setState('live', 'live'); };
    ws.onclose = (e) => { lv.connected = false; if (lv.ended) return setState('session ended', 'gone');
      if (e.code === 1008 || e.code === 4401 || e.code === 4404) return setState('not available: ' + (e.reason || e.code), 'gone');
      setState('reconnecting…'); setTimeout(connect, 1000); };
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'frame') { pending = m; if (!drawing) draw(); }
      else if (m.type === 'page') { lv.page = m.page; $('title').textContent = !m.page ? 'no page' : m.page.title && m.page.title !== m.page.url ? m.page.title + '  —  ' + m.page.url : m.page.url; }
      else if (m.type === 'cursor') { lv.cursor = m.cursor; placeCursor(); }
      else if (m.type === 'hello') { lv.cursor = m.cursor; if (m.readOnly && !readOnly) $('ro').style.display = 'inline'; }
      else if (m.type === 'ended') { lv.ended = true; setState('session ended', 'gone'); }
    };
  }

  async function draw() {
    drawing = true;
    while (pending) {
      const m = pending; pending = null;
      try {
        const img = new Image(); img.src = 'data:image/jpeg;base64,' + m.data; await img.decode();
        if (canvas.width !== img.naturalWidth || canvas.height !== img.naturalHeight) { canvas.width = img.naturalWidth; canvas.height = img.naturalHeight; }
        g.drawImage(img, 0, 0);
        lv.meta = m.metadata; lv.frames++; document.body.dataset.frames = String(lv.frames);
        $('size').textContent = Math.round(m.metadata.deviceWidth) + '×' + Math.round(m.metadata.deviceHeight);
        placeCursor();
      } catch (_) { /* a broken frame is skipped */ }
    }
    drawing = false;
  }

  function placeCursor() {
    const c = lv.cursor || {}, meta = lv.meta;
    canvas.style.cursor = c.visible === false ? 'none' : (readOnly ? 'default' : 'crosshair');
    if (c.visible === false || c.x === undefined || !meta) { cursorEl.style.display = 'none'; return; }
    const r = canvas.getBoundingClientRect();
    cursorEl.style.display = 'block';
    cursorEl.style.left = (c.x / meta.deviceWidth) * r.width + 'px';
    cursorEl.style.top = (c.y / meta.deviceHeight) * r.height + 'px';
  }

  function send(m) { if (readOnly || !ws || ws.readyState !== 1 || !lv.meta) return; ws.send(JSON.stringify(m)); lv.sent++; }
  function pos(e) { const r = canvas.getBoundingClientRect(), meta = lv.meta;
    return { x: Math.max(0, Math.min(meta.deviceWidth, ((e.clientX - r.left) / r.width) * meta.deviceWidth)),
             y: Math.max(0, Math.min(meta.deviceHeight, ((e.clientY - r.top) / r.height) * meta.deviceHeight)) }; }
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const BUTTONS = ['left', 'middle', 'right', 'back', 'forward'];
  let lastMove = 0;
  canvas.addEventListener('mousemove', (e) => { const now = performance.now(); if (now - lastMove < 16 && !e.buttons) return; lastMove = now;
    if (lv.meta) send({ type: 'mouse', action: 'move', ...pos(e), buttons: e.buttons, button: e.buttons & 1 ? 'left' : 'none', modifiers: mods(e) }); });
  canvas.addEventListener('mousedown', (e) => { canvas.focus(); e.preventDefault(); if (lv.meta) send({ type: 'mouse', action: 'down', ...pos(e), button: BUTTONS[e.button] || 'left', buttons: e.buttons, clickCount: e.detail || 1, modifiers: mods(e) }); });
  canvas.addEventListener('mouseup', (e) => { if (lv.meta) send({ type: 'mouse', action: 'up', ...pos(e), button: BUTTONS[e.button] || 'left', buttons: e.buttons, clickCount: e.detail || 1, modifiers: mods(e) }); });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('wheel', (e) => { e.preventDefault(); const k = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 400 : 1;
    if (lv.meta) send({ type: 'wheel', ...pos(e), deltaX: e.deltaX * k, deltaY: e.deltaY * k, modifiers: mods(e) }); }, { passive: false });
  const key = (action) => (e) => { if (readOnly) return; e.preventDefault();
    send({ type: 'key', action, key: e.key.slice(0, 32), code: e.code.slice(0, 32), keyCode: e.keyCode & 255, location: e.location, repeat: e.repeat, modifiers: mods(e) }); };
  canvas.addEventListener('keydown', key('down'));
  canvas.addEventListener('keyup', key('up'));
  canvas.addEventListener('paste', (e) => { const t = e.clipboardData && e.clipboardData.getData('text'); if (t) { e.preventDefault(); send({ type: 'text', text: t.slice(0, 10000) }); } });
  window.addEventListener('resize', placeCursor);
  connect();
})();
`;

export function liveViewHtml(sessionId: string): string {
  const safeId = sessionId.replace(/[^A-Za-z0-9._-]/g, '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Live view · ${safeId}</title><style>${STYLE}</style></head>
<body><div id="bar"><span id="state">connecting…</span><span id="ro">read-only</span><span class="grow" id="title"></span><span id="size"></span></div>
<div id="stage"><div id="wrap"><canvas id="screen" tabindex="0" width="1" height="1"></canvas><svg id="cursor" viewBox="0 0 14 20" aria-hidden="true"><path d="M1 1 L1 16 L5 12 L8 19 L10.5 18 L7.5 11 L13 11 Z" fill="#fff" stroke="#000" stroke-width="1.2" stroke-linejoin="round"/></svg></div></div>
<script>${SCRIPT}</script></body></html>`;
}
