/**
 * HTTP tab: send a request through the session's browser (`POST /browsers/{id}/curl`: its
 * network stack, cookies and proxy) and view status, headers and body (pretty-printed when it
 * is JSON). Headers are typed one per line as `Name: value`; Ctrl/⌘+Enter sends.
 */
import { useEffect, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api, type BodyOf } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Badge, Button, Field } from '../../components/ui';
import type { CurlResult } from '../../../../shared/wire/session-curl';
import { runOnCtrlEnter } from './pane-keys';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const i = line.indexOf(':');
    if (i <= 0) throw new Error(`header line "${line}" must look like Name: value`);
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

function prettyBody(r: CurlResult): { text: string; json: boolean } {
  const ct = Object.entries(r.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const type = Array.isArray(ct) ? ct.join(',') : (ct ?? '');
  if (/json/i.test(type) || /^\s*[[{]/.test(r.body)) {
    try {
      return { text: JSON.stringify(JSON.parse(r.body), null, 2), json: true };
    } catch {}
  }
  return { text: r.body, json: false };
}

export function HttpPane({ session }: PaneProps): React.JSX.Element {
  const [method, setMethod] = useState<(typeof METHODS)[number]>('GET');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [encoding, setEncoding] = useState<'utf8' | 'base64'>('utf8');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [res, setRes] = useState<CurlResult | null>(null);
  const resultRef = useRef<HTMLElement>(null);
  useEffect(() => {
    // A block body: scrollIntoView may return a Promise, which React would call as the cleanup.
    resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [res]);

  const send = async (): Promise<void> => {
    if (busy || !url.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const req: BodyOf<'POST /browsers/:id/curl'> = { url: url.trim(), method, response_encoding: encoding };
      const h = parseHeaders(headers);
      if (Object.keys(h).length) req.headers = h;
      if (body && method !== 'GET' && method !== 'HEAD') req.body = body;
      setRes(await api.call('POST /browsers/:id/curl', { params: { id: session.session_id }, body: req }));
    } catch (err) {
      setError(errorMessage(err));
      setRes(null);
    } finally {
      setBusy(false);
    }
  };
  const keys = runOnCtrlEnter(() => void send());
  const shown = res ? prettyBody(res) : null;

  return (
    <div className="http-pane">
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <div className="input-group">
          <select aria-label="Method" value={method} onChange={(e) => setMethod(METHODS.find((m) => m === e.target.value) ?? 'GET')}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <input
            aria-label="URL"
            className="mono"
            placeholder="https://example.com/api"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            onKeyDown={keys}
          />
          <Button type="submit" variant="primary" busy={busy} disabled={!url.trim()}>
            Send
          </Button>
        </div>
        <div className="form-grid http-fields">
          <Field label="Headers" hint="One per line: Name: value">
            <textarea className="mono" rows={4} value={headers} onChange={(e) => setHeaders(e.target.value)} onKeyDown={keys} />
          </Field>
          <Field label="Body" hint={method === 'GET' || method === 'HEAD' ? `Not sent with ${method}` : 'Sent as is'}>
            <textarea className="mono" rows={4} value={body} onChange={(e) => setBody(e.target.value)} onKeyDown={keys} />
          </Field>
          <Field label="Response encoding">
            <select value={encoding} onChange={(e) => setEncoding(e.target.value as 'utf8' | 'base64')}>
              <option value="utf8">utf8 (text)</option>
              <option value="base64">base64 (binary)</option>
            </select>
          </Field>
        </div>
      </form>
      {error ? (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      ) : null}
      {res && shown ? (
        <section ref={resultRef} className="card http-response" aria-label="Response">
          <div className="toolbar">
            <Badge tone={res.status < 300 ? 'ok' : res.status < 400 ? 'info' : 'bad'}>{`HTTP ${res.status}`}</Badge>
            <span className="muted small">{res.duration_ms} ms</span>
            {shown.json ? <Badge>JSON</Badge> : null}
          </div>
          <h4>Headers</h4>
          <table className="table headers">
            <tbody>
              {Object.entries(res.headers).map(([k, v]) => (
                <tr key={k}>
                  <td className="mono strong nowrap">{k}</td>
                  <td className="mono wrap">{Array.isArray(v) ? v.join(', ') : v}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h4>Body</h4>
          <pre className="output response-body">{shown.text || '(empty body)'}</pre>
        </section>
      ) : null}
      {!res && !error ? (
        <p className="muted">Type a URL and press Send (or Ctrl+Enter): the request leaves from the session's browser, with its cookies and proxy.</p>
      ) : null}
    </div>
  );
}
