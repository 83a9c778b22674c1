import { describe, expect, it } from 'vitest';
import { newSessionRequest, publicCapabilities } from './webdriver-capabilities.js';
import { withErrorObject } from './webdriver-errors.js';

const escape = { binary: '/bin/sh', args: ['--remote-debugging-port=1'], extensions: ['x'] };

describe('newSessionRequest', () => {
  it('forces goog:chromeOptions to the debugger address everywhere and keeps W3C capabilities', () => {
    const r = newSessionRequest(
      {
        capabilities: {
          alwaysMatch: { 'goog:chromeOptions': escape, pageLoadStrategy: 'eager', timeouts: { script: 5 } },
          firstMatch: [{ 'goog:chromeOptions': escape, browserName: 'chrome' }, { acceptInsecureCerts: true }],
        },
        desiredCapabilities: { 'goog:chromeOptions': escape },
      },
      '127.0.0.1:9222',
    );
    expect(r.body).toEqual({
      capabilities: {
        alwaysMatch: { pageLoadStrategy: 'eager', timeouts: { script: 5 }, 'goog:chromeOptions': { debuggerAddress: '127.0.0.1:9222' } },
        firstMatch: [{}, { acceptInsecureCerts: true }],
      },
    });
    expect(r.bidi).toBe(false);
  });

  it('notes webSocketUrl: true (alwaysMatch or firstMatch) without passing it on', () => {
    expect(newSessionRequest({ capabilities: { alwaysMatch: { webSocketUrl: true } } }, 'a:1')).toEqual({
      body: { capabilities: { alwaysMatch: { 'goog:chromeOptions': { debuggerAddress: 'a:1' } } } },
      bidi: true,
    });
    expect(newSessionRequest({ capabilities: { firstMatch: [{ webSocketUrl: true }] } }, 'a:1').bidi).toBe(true);
  });

  it('makes an empty request of anything that is not a capabilities object', () => {
    for (const body of [undefined, null, 'x', [], { capabilities: 'x' }, { capabilities: { alwaysMatch: [1], firstMatch: 'y' } }]) {
      expect(newSessionRequest(body, 'a:1').body).toEqual({ capabilities: { alwaysMatch: { 'goog:chromeOptions': { debuggerAddress: 'a:1' } } } });
    }
  });
});

describe('publicCapabilities', () => {
  it('removes the inside addresses and names the engine BiDi URL when asked for', () => {
    const answer = {
      value: {
        sessionId: 's',
        capabilities: {
          browserName: 'chrome',
          'goog:chromeOptions': { debuggerAddress: '127.0.0.1:9222' },
          webSocketUrl: 'ws://localhost:9515/session/s',
          chrome: { chromedriverVersion: '1', userDataDir: '/tmp/x' },
        },
      },
    };
    expect(publicCapabilities(answer, 'ws://engine/browsers/b/webdriver?jwt=t')).toEqual({
      value: {
        sessionId: 's',
        capabilities: { browserName: 'chrome', webSocketUrl: 'ws://engine/browsers/b/webdriver?jwt=t', chrome: { chromedriverVersion: '1' } },
      },
    });
    expect(JSON.stringify(publicCapabilities(structuredClone(answer), undefined))).not.toMatch(/9222|9515|webSocketUrl|userDataDir/);
  });

  it('leaves answers without capabilities alone', () => {
    expect(publicCapabilities({ value: null }, 'x')).toEqual({ value: null });
    expect(publicCapabilities('text', 'x')).toBe('text');
  });
});

describe('withErrorObject', () => {
  it('adds code, message and details to a W3C error and leaves other answers alone', () => {
    expect(withErrorObject({ value: { error: 'no such element', message: 'no such element: #x', stacktrace: '' } })).toEqual({
      value: { error: 'no such element', message: 'no such element: #x', stacktrace: '' },
      code: 'no_such_element',
      message: 'no such element: #x',
      details: [],
    });
    expect(withErrorObject({ value: { error: 'unknown command' } })).toMatchObject({ code: 'unknown_command', message: 'unknown command' });
    for (const a of [{ value: null }, { value: 'x' }, [1], 'text', null]) expect(withErrorObject(a)).toEqual(a);
  });
});
