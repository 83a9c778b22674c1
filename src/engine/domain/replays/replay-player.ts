/**
 * The page behind `replay_view_url`: a self-contained HTML player for one recording (no
 * external assets). It plays `/browsers/{id}/replays/{replay_id}` with the same query (the
 * session JWT), and waits and retries while the recording is still being finished (202).
 */
export function replayPlayerHtml(sessionId: string, replayId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Replay ${safe(replayId)}</title>
<style>html,body{margin:0;height:100%;background:#111;color:#ddd;font:13px system-ui,sans-serif}
#bar{padding:6px 10px;background:#1d1d1d;border-bottom:1px solid #333}video{display:block;max-width:100vw;max-height:calc(100vh - 32px);margin:auto}</style></head>
<body><div id="bar">Replay ${safe(replayId)} · session ${safe(sessionId)} · <span id="state">loading…</span></div><video id="v" controls playsinline></video>
<script>(() => {
  const src = location.pathname.replace(/\\/view\\/?$/, '') + location.search;
  const state = document.getElementById('state'), v = document.getElementById('v');
  async function load() {
    const r = await fetch(src, { method: 'HEAD' }).catch(() => null);
    if (r && r.status === 202) { state.textContent = 'finishing the recording…'; return setTimeout(load, 1000); }
    if (!r || !r.ok) { state.textContent = 'not available (' + (r ? r.status : 'network error') + ')'; return; }
    state.textContent = 'ready'; v.src = src;
  }
  load();
})();</script></body></html>`;
}
