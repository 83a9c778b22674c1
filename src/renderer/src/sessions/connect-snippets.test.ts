import { describe, expect, it } from 'vitest';
import { SNIPPET_KINDS, connectSnippet, engineUrl } from './connect-snippets.js';

const session = {
  session_id: 'abc123',
  base_url: 'http://127.0.0.1:8420/browsers/abc123',
  cdp_ws_url: 'ws://127.0.0.1:8420/browsers/abc123/cdp?jwt=secret.token.here',
};

describe('connect snippets', () => {
  it('puts the tokenised CDP URL in what is copied and a redacted one on screen', () => {
    for (const kind of ['playwright', 'puppeteer'] as const) {
      const { copy, shown } = connectSnippet(kind, session);
      expect(copy, kind).toContain(session.cdp_ws_url);
      expect(shown, kind).toContain('ws://127.0.0.1:8420/browsers/abc123/cdp?jwt=…');
      expect(shown, kind).not.toContain('secret');
    }
  });

  it("points the SDK at the session's engine and names the session", () => {
    const { copy, shown } = connectSnippet('sdk', session);
    expect(copy).toContain("baseURL: 'http://127.0.0.1:8420'");
    expect(copy).toContain("retrieve('abc123')");
    expect(shown).toBe(copy); // the SDK snippet carries no token: the API key comes from the environment
  });

  it('derives the engine URL from base_url', () => {
    expect(engineUrl({ base_url: 'https://deck.example/api/browsers/x' })).toBe('https://deck.example/api');
    expect(engineUrl({ base_url: undefined })).toBe('http://127.0.0.1:8420');
  });

  it('has a snippet for every kind', () => {
    for (const kind of SNIPPET_KINDS) expect(connectSnippet(kind, session).copy.length).toBeGreaterThan(50);
  });
});
