/**
 * The hosted login page (`hosted_url`): a plain server-rendered HTML page where a person sees
 * what the website asks for and answers it, with a link to the live view of the browser. It is
 * reached without an API key; the flow's one-time handoff code in the URL is the credential.
 */
import type { FlowView } from './flow-state.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function hostedPage(domain: string, flow: FlowView, action: string): string {
  const busy = flow.flow_status === 'IN_PROGRESS' && flow.flow_step !== 'AWAITING_INPUT';
  const parts: string[] = [`<h1>Sign in to ${esc(domain)}</h1>`, `<p id="status">Status: <b>${esc(flow.flow_status)}</b> · step ${esc(flow.flow_step)}</p>`];
  if (flow.website_error) parts.push(`<p role="alert" id="website-error">${esc(flow.website_error)}</p>`);
  if (flow.error_message && flow.flow_status !== 'IN_PROGRESS') parts.push(`<p id="error">${esc(flow.error_message)}</p>`);
  if (flow.flow_status === 'SUCCESS') parts.push('<p id="done">You are signed in. You can close this page.</p>');
  if (flow.flow_status === 'IN_PROGRESS' && flow.flow_step === 'AWAITING_INPUT') {
    const inputs = (flow.discovered_fields ?? []).map((f) => {
      const name = String(f.name);
      const type = f.type === 'password' ? 'password' : f.type === 'email' ? 'email' : 'text';
      const hint = f.hint ? `<small>${esc(String(f.hint))}</small>` : '';
      return `<p><label>${esc(String(f.label || name))}<br><input name="field:${esc(name)}" type="${type}"${f.required ? ' required' : ''} autocomplete="off"></label>${hint}</p>`;
    });
    const choices = (flow.choices ?? []).map((c) => `<button name="choice" value="${esc(String(c.id))}" formnovalidate>${esc(String(c.label))}</button>`);
    parts.push(
      `<form method="post" action="${esc(action)}">${inputs.join('')}${inputs.length ? '<button type="submit">Submit</button>' : ''}${choices.length ? `<p>${choices.join(' ')}</p>` : ''}</form>`,
    );
  }
  if (flow.live_view_url && flow.flow_status === 'IN_PROGRESS')
    parts.push(`<p><a href="${esc(flow.live_view_url)}" target="_blank" rel="noopener">Watch the browser (live view)</a></p>`);
  const refresh = busy ? '<meta http-equiv="refresh" content="2">' : '';
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">${refresh}<title>Sign in to ${esc(domain)} · Browserdeck</title><style>body{font:16px system-ui;max-width:36rem;margin:3rem auto;padding:0 1rem}[role=alert]{color:#b00}</style></head><body>${parts.join('\n')}</body></html>`;
}

/** Turns the hosted form's fields (`field:<name>`, `choice`) into a submit body. */
export function hostedSubmission(form: URLSearchParams): { fields: Record<string, string>; selected_choice_id?: string } {
  const fields: Record<string, string> = {};
  for (const [k, v] of form) if (k.startsWith('field:') && v !== '') fields[k.slice(6)] = v;
  const choice = form.get('choice');
  return choice ? { fields: {}, selected_choice_id: choice } : { fields };
}
