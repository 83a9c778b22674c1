import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.js';

describe('redactUrl', () => {
  it('leaves URLs without a query alone', () => {
    expect(redactUrl('/browsers/abc/cdp')).toBe('/browsers/abc/cdp');
  });

  it('redacts every secret parameter, whatever its case, and keeps the others', () => {
    expect(redactUrl('/live?jwt=eyJ.a.b&tab=2')).toBe('/live?jwt=REDACTED&tab=2');
    expect(redactUrl('/x?Token=t1&API_KEY=k&apikey=k2&key=k3&password=p&secret=s&access_token=a&handoff_code=h&limit=5')).toBe(
      '/x?Token=REDACTED&API_KEY=REDACTED&apikey=REDACTED&key=REDACTED&password=REDACTED&secret=REDACTED&access_token=REDACTED&handoff_code=REDACTED&limit=5',
    );
  });

  it('redacts the token segment of the DevTools frontend and trace viewer paths', () => {
    expect(redactUrl('/devtools-frontend/eyJ.a.b/ws?x=1')).toBe('/devtools-frontend/REDACTED/ws?x=1');
    expect(redactUrl('/trace-viewer/eyJ.a.b/index.html')).toBe('/trace-viewer/REDACTED/index.html');
    expect(redactUrl('/browsers/devtools-frontend/abc')).toBe('/browsers/devtools-frontend/abc');
  });

  it('sees through percent-encoded parameter names', () => {
    expect(redactUrl('/x?%6Awt=secret')).toBe('/x?%6Awt=REDACTED');
  });

  it('survives malformed encoding and keeps names that only contain a secret word', () => {
    expect(redactUrl('/x?%E0%A4%A=1&jwt=t')).toBe('/x?%E0%A4%A=1&jwt=REDACTED');
    expect(redactUrl('/x?monkey=1&token_type=bearer&jwt')).toBe('/x?monkey=1&token_type=bearer&jwt');
  });
});
