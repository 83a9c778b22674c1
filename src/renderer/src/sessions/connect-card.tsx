/**
 * The Overview's Connect card: Playwright, Puppeteer and `@onkernel/sdk` code filled in for this
 * session (connect-snippets.ts), shown with the token redacted and copied with it.
 */
import { useState } from 'react';
import type { Session } from '../../../shared/wire/sessions';
import { CopyButton } from './copy-button';
import { SNIPPET_KINDS, SNIPPET_TITLES, connectSnippet, type SnippetKind } from './connect-snippets';

export function ConnectCard({ session }: { session: Session }): React.JSX.Element {
  const [kind, setKind] = useState<SnippetKind>('playwright');
  const snippet = connectSnippet(kind, session);
  return (
    <section className="card connect-card" aria-label="Connect">
      <div className="toolbar">
        <h3>Connect</h3>
        <span className="muted small">Drive this session from your own code. The token in the URL is valid while the session runs.</span>
      </div>
      <div className="snippet-tabs" role="tablist" aria-label="Client">
        {SNIPPET_KINDS.map((k) => (
          <button key={k} type="button" role="tab" aria-selected={k === kind} className={k === kind ? 'chip chip-on' : 'chip'} onClick={() => setKind(k)}>
            {SNIPPET_TITLES[k]}
          </button>
        ))}
        <span className="spacer" />
        <CopyButton text={snippet.copy} label={`Copy ${SNIPPET_TITLES[kind]} snippet`} what={`${SNIPPET_TITLES[kind]} snippet`} />
      </div>
      <pre className="mono connect-snippet" aria-label={`${SNIPPET_TITLES[kind]} snippet`}>
        {snippet.shown}
      </pre>
    </section>
  );
}
