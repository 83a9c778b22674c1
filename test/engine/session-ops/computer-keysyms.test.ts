/**
 * The keysym table: xdotool names, aliases and combos map to the DOM key/code/keyCode CDP
 * needs, Shift picks the shifted character, shortcuts carry no text, and unknown names fail
 * naming the key.
 */
import { describe, expect, it } from 'vitest';
import { UnknownKeyError, lookupKeysym, parseCombo, MODIFIER_BIT } from '../../../src/engine/runtime/computer/keysyms.js';
import { keyEventParams, resolveKeys } from '../../../src/engine/runtime/computer/keyboard-actions.js';

describe('keysyms', () => {
  it.each([
    ['Return', 'Enter', 'Enter', 13],
    ['BackSpace', 'Backspace', 'Backspace', 8],
    ['Tab', 'Tab', 'Tab', 9],
    ['Escape', 'Escape', 'Escape', 27],
    ['F5', 'F5', 'F5', 116],
    ['F12', 'F12', 'F12', 123],
    ['Prior', 'PageUp', 'PageUp', 33],
    ['Page_Down', 'PageDown', 'PageDown', 34],
    ['Left', 'ArrowLeft', 'ArrowLeft', 37],
    ['Delete', 'Delete', 'Delete', 46],
    ['space', ' ', 'Space', 32],
    ['a', 'a', 'KeyA', 65],
    ['5', '5', 'Digit5', 53],
    ['exclam', '1', 'Digit1', 49],
    ['slash', '/', 'Slash', 191],
    ['KP_7', '7', 'Numpad7', 103],
    ['Super_L', 'Meta', 'MetaLeft', 91],
  ])('%s → key %s, code %s, keyCode %i', (name, key, code, keyCode) => {
    expect(lookupKeysym(name)).toMatchObject({ key, code, keyCode });
  });

  it('knows xdotool aliases case-insensitively and named keys in any case', () => {
    expect(lookupKeysym('ctrl')).toMatchObject({ key: 'Control', modifier: 'Control' });
    expect(lookupKeysym('CTRL')).toMatchObject({ key: 'Control' });
    expect(lookupKeysym('Alt')).toMatchObject({ key: 'Alt', modifier: 'Alt' });
    expect(lookupKeysym('super')).toMatchObject({ key: 'Meta' });
    expect(lookupKeysym('return')).toMatchObject({ key: 'Enter' });
    expect(lookupKeysym('backspace')).toMatchObject({ key: 'Backspace' });
    // single characters stay case-sensitive: "T" is Shift+t
    expect(lookupKeysym('T')).toMatchObject({ code: 'KeyT', needsShift: true });
    expect(lookupKeysym('t')?.needsShift).toBeUndefined();
  });

  it('parses combos, modifiers first', () => {
    expect(parseCombo('Ctrl+t').map((d) => d.code)).toEqual(['ControlLeft', 'KeyT']);
    expect(parseCombo('ctrl+shift+Tab').map((d) => d.key)).toEqual(['Control', 'Shift', 'Tab']);
    expect(parseCombo('+').map((d) => d.key)).toEqual(['=']);
    expect(parseCombo('plus')[0]).toMatchObject({ code: 'Equal', needsShift: true });
  });

  it('rejects unknown names, naming them', () => {
    expect(() => parseCombo('Ctrl+Nope')).toThrow(UnknownKeyError);
    expect(() => parseCombo('Ctrl+Nope')).toThrow('"Nope"');
    expect(() => parseCombo('Ctrl+')).toThrow(UnknownKeyError);
    expect(lookupKeysym('Hyperdrive')).toBeUndefined();
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
