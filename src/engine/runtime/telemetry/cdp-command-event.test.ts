import { describe, expect, it } from 'vitest';
import { CDP_COMMAND_METHODS } from '../../../shared/wire/telemetry-categories.js';
import { classifyCdpFrame } from './cdp-command-event.js';

const dataOf = (frame: string, connectionId?: string) => {
  const c = classifyCdpFrame(frame, connectionId);
  if (c.kind !== 'command') throw new Error(`no event (${c.kind}) for ${frame}`);
  return c.data;
};

describe('cdp_command classification', () => {
  it('keeps what describes a click, with the common fields', () => {
    const d = dataOf(
      `{"id":7,"sessionId":"S1","method":"Input.dispatchMouseEvent","params":{"type":"mousePressed","x":10.5,"y":20,"button":"left","clickCount":2,"modifiers":8,"pointerType":"mouse"}}`,
      '3',
    );
    expect(d).toEqual({
      method: 'Input.dispatchMouseEvent',
      command_id: 7,
      connection_id: '3',
      session_id: 'S1',
      event_type: 'mousePressed',
      x: 10.5,
      y: 20,
      button: 'left',
      click_count: 2,
      modifiers: 8,
      pointer_type: 'mouse',
    });
  });

  it('reads a mouse event emulating touch like a mouse event, without its pointer fields', () => {
    expect(
      dataOf(
        `{"id":8,"method":"Input.emulateTouchFromMouseEvent","params":{"type":"mouseWheel","x":1,"y":2,"button":"none","deltaX":3,"deltaY":-4,"modifiers":1,"clickCount":1}}`,
      ),
    ).toEqual({
      method: 'Input.emulateTouchFromMouseEvent',
      command_id: 8,
      event_type: 'mouseWheel',
      x: 1,
      y: 2,
      button: 'none',
      delta_x: 3,
      delta_y: -4,
      modifiers: 1,
      click_count: 1,
    });
  });

  it('counts typed text and names only non-printing keys', () => {
    expect(dataOf(`{"id":1,"method":"Input.insertText","params":{"text":"hunter2"}}`)).toEqual({ method: 'Input.insertText', command_id: 1, text_length: 7 });
    expect(dataOf(`{"id":2,"method":"Input.dispatchKeyEvent","params":{"type":"keyDown","key":"é","text":"é","code":"KeyE"}}`)).toEqual({
      method: 'Input.dispatchKeyEvent',
      command_id: 2,
      event_type: 'keyDown',
      text_length: 1,
    });
    expect(dataOf(`{"id":3,"method":"Input.dispatchKeyEvent","params":{"type":"keyUp","key":"Enter"}}`)).toMatchObject({ named_key: 'Enter' });
    expect(dataOf(`{"id":4,"method":"Input.dispatchKeyEvent","params":{"type":"weird","key":"x"}}`)).toEqual({
      method: 'Input.dispatchKeyEvent',
      command_id: 4,
      event_type: 'other',
    });
  });

  it('reports a navigation by scheme only, drags and files by counts', () => {
    expect(
      dataOf(
        `{"id":1,"method":"Page.navigate","params":{"url":"https://example.com/reset?token=abc","referrer":"https://m.example/x","transitionType":"typed"}}`,
      ),
    ).toEqual({ method: 'Page.navigate', command_id: 1, url_scheme: 'https', referrer_present: true, transition_type: 'typed' });
    expect(
      dataOf(
        `{"id":2,"method":"Input.dispatchDragEvent","params":{"type":"drop","x":5,"y":6,"data":{"items":[{"mimeType":"text/plain","data":"s"},{"mimeType":"image/png","data":"s"}],"files":["/tmp/a.pdf"],"dragOperationsMask":1}}}`,
      ),
    ).toEqual({
      method: 'Input.dispatchDragEvent',
      command_id: 2,
      event_type: 'drop',
      x: 5,
      y: 6,
      drag_item_count: 2,
      drag_file_count: 1,
      drag_mime_categories: ['image', 'text'],
      drag_operations_mask: 1,
    });
    expect(dataOf(`{"id":3,"method":"DOM.setFileInputFiles","params":{"files":["/a","/b"],"backendNodeId":7}}`)).toEqual({
      method: 'DOM.setFileInputFiles',
      command_id: 3,
      file_count: 2,
      backend_node_id: 7,
    });
    expect(dataOf(`{"id":4,"method":"Autofill.trigger","params":{"fieldId":3,"card":{"number":"4111111111111111","cvc":"123"}}}`)).toEqual({
      method: 'Autofill.trigger',
      command_id: 4,
      field_id: 3,
      mode: 'card',
    });
  });

  it('reports nothing for library bookkeeping, results, events or a nested method', () => {
    for (const frame of [
      `{"id":1,"method":"Runtime.evaluate","params":{"expression":"1+1"}}`,
      `{"id":2,"method":"Emulation.setDeviceMetricsOverride","params":{"width":1,"height":1}}`,
      `{"id":3,"result":{}}`,
      `{"method":"Page.navigate","params":{"url":"https://x"}}`,
      `{"id":4,"method":"Runtime.callFunctionOn","params":{"method":"Input.dispatchMouseEvent","x":1}}`,
      ``,
      `{"id":5,"method":"Runtime.evaluate","params":`,
    ])
      expect(classifyCdpFrame(frame).kind).toBe('ignored');
  });

  it('drops (and says so) a supported command whose arguments do not decode', () => {
    expect(classifyCdpFrame(`{"id":1,"method":"Input.insertText","params":{"text":5}}`).kind).toBe('dropped');
    expect(classifyCdpFrame(`{"id":1,"method":"Input.insertText","params":`).kind).toBe('dropped');
    expect(classifyCdpFrame(`{"id":1,"method":"Page.navigate","params":[1]}`).kind).toBe('dropped');
  });

  it('decodes an escaped method name and a supported command in a big frame', () => {
    expect(dataOf(`{"id":1,"method":"Input.insertT\\u0065xt","params":{"text":"ab"}}`)).toMatchObject({ method: 'Input.insertText', text_length: 2 });
    const big = JSON.stringify({ id: 9, method: 'Input.insertText', params: { text: 'x'.repeat(100_000) } });
    expect(dataOf(big)).toMatchObject({ text_length: 100_000 });
    const bigOther = JSON.stringify({ id: 9, method: 'Runtime.evaluate', params: { expression: 'x'.repeat(100_000) } });
    expect(classifyCdpFrame(bigOther).kind).toBe('ignored');
  });

  it('never lets a secret through, for any of the 38 methods', () => {
    const secrets = {
      text: 'SENTINELtext',
      unmodifiedText: 'SENTINELu',
      key: 'SENTINELkey',
      code: 'SENTINELcode',
      url: 'https://host.example/SENTINELpath?token=SENTINELq#SENTINELf',
      referrer: 'https://host.example/SENTINELref',
      scriptToEvaluateOnLoad: 'SENTINELscript',
      headerTemplate: 'SENTINELheader',
      footerTemplate: 'SENTINELfooter',
      pageRanges: 'SENTINELranges',
      promptText: 'SENTINELprompt',
      files: ['/tmp/SENTINELfile'],
      proxyServer: 'http://SENTINELproxy:1',
      proxyBypassList: 'SENTINELbypass',
      originsWithUniversalNetworkAccess: ['https://SENTINELorigin'],
      card: { number: 'SENTINELcard' },
      address: { fields: [{ name: 'SENTINELname', value: 'SENTINELvalue' }] },
      data: { items: [{ mimeType: 'text/SENTINELsub', data: 'SENTINELdrag' }], files: ['/SENTINELdragfile'] },
      type: 'SENTINELtype',
      format: 'SENTINELformat',
      transitionType: 'SENTINELtransition',
      bounds: {},
      clip: {},
      touchPoints: [{ x: 1, y: 2 }],
    };
    for (const method of CDP_COMMAND_METHODS) {
      const d = dataOf(JSON.stringify({ id: 1, sessionId: 'S', method, params: secrets }));
      expect(d.method).toBe(method);
      expect(JSON.stringify(d), method).not.toContain('SENTINEL');
    }
  });

  it('reports every method even without arguments', () => {
    for (const method of CDP_COMMAND_METHODS) expect(dataOf(JSON.stringify({ id: 1, method }))).toEqual({ method, command_id: 1 });
  });
});
