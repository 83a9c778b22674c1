import { describe, expect, it } from 'vitest';
import { guardReadOnlyCommand, readOnlyAllows } from './read-only-guard.js';

describe('read-only CDP guard', () => {
  it('lets reads through and refuses what changes the page, including methods it has never heard of', () => {
    for (const m of [
      'DOM.getDocument',
      'CSS.getMatchedStylesForNode',
      'Network.getResponseBody',
      'Runtime.getProperties',
      'Page.enable',
      'Overlay.highlightNode',
      'Tracing.start',
      // A read-only viewer must be able to let a page its Debugger.enable paused (a `debugger;` statement) run on.
      'Debugger.resume',
    ])
      expect(readOnlyAllows(m), m).toBe(true);
    for (const m of [
      'Page.navigate',
      'Page.reload',
      'Input.dispatchMouseEvent',
      'Input.insertText',
      'DOM.setOuterHTML',
      'DOM.removeNode',
      'DOM.setAttributeValue',
      'Emulation.setDeviceMetricsOverride',
      'Emulation.getSomething',
      'Fetch.enable',
      'Network.setCookie',
      'Target.createTarget',
      'Runtime.addBinding',
      'Debugger.pause',
      'Browser.close',
      'NewDomain.doThing',
      'nodot',
    ])
      expect(readOnlyAllows(m), m).toBe(false);
  });

  it('forces evaluations side-effect free and answers refusals with the command id and session', () => {
    const out = guardReadOnlyCommand(
      JSON.stringify({ id: 3, method: 'Runtime.evaluate', params: { expression: 'x = 1', throwOnSideEffect: false, awaitPromise: true } }),
    );
    expect('forward' in out && JSON.parse(out.forward).params).toEqual({ expression: 'x = 1', throwOnSideEffect: true, awaitPromise: false });
    const refused = guardReadOnlyCommand(JSON.stringify({ id: 4, sessionId: 'S', method: 'Page.navigate', params: { url: 'https://x' } }));
    expect('reply' in refused && JSON.parse(refused.reply)).toMatchObject({ id: 4, sessionId: 'S', error: { code: -32000 } });
    expect('reply' in guardReadOnlyCommand('not json')).toBe(true);
    expect('reply' in guardReadOnlyCommand(JSON.stringify({ id: 5 }))).toBe(true);
    // JSON that is no command object is refused, not a TypeError thrown out of the socket's message handler.
    for (const text of ['null', '1', '"Page.navigate"', '[{"method":"Page.navigate"}]'])
      expect(JSON.parse((guardReadOnlyCommand(text) as { reply: string }).reply), text).toMatchObject({ error: { code: -32000 } });
  });
});
