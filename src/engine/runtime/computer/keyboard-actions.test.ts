/** Key events CDP gets: text only when typing, shifted characters with Shift, unknown keys named by position. */
import { describe, expect, it } from 'vitest';
import { lookupKeysym, MODIFIER_BIT } from './keysyms.js';
import { keyEventParams, resolveKeys } from './keyboard-actions.js';

describe('keyboard actions', () => {
  it('names an unknown key by its position in the list', () => {
    expect(() => resolveKeys(['Return', 'Foo'], 'keys')).toThrow('keys[1]: unknown key "Foo"');
  });

  it('builds key events: text only when typing, shifted characters with Shift', () => {
    const a = lookupKeysym('a')!;
    expect(keyEventParams(a, true, 0)).toMatchObject({ type: 'keyDown', key: 'a', text: 'a', windowsVirtualKeyCode: 65 });
    expect(keyEventParams(a, true, MODIFIER_BIT.Shift)).toMatchObject({ key: 'A', text: 'A' });
    const ctrlA = keyEventParams(a, true, MODIFIER_BIT.Control);
    expect(ctrlA).toMatchObject({ type: 'rawKeyDown', key: 'a', modifiers: 2 });
    expect(ctrlA.text).toBeUndefined();
    expect(keyEventParams(a, false, 0)).toMatchObject({ type: 'keyUp' });
    expect(keyEventParams(lookupKeysym('Return')!, true, 0)).toMatchObject({ type: 'keyDown', text: '\r' });
    expect(keyEventParams(lookupKeysym('F5')!, true, 0)).toMatchObject({ type: 'rawKeyDown', key: 'F5' });
    expect(keyEventParams(lookupKeysym('Shift_R')!, true, MODIFIER_BIT.Shift)).toMatchObject({ key: 'Shift', code: 'ShiftRight', location: 2 });
  });
});
