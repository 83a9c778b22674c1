import { describe, expect, it } from 'vitest';
import { CHAR_KEYS, lookupKeysym, parseCombo, UnknownKeyError } from './keysyms.js';

describe('lookupKeysym', () => {
  it('maps X11 names to DOM key/code/keyCode', () => {
    expect(lookupKeysym('Return')).toMatchObject({ key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' });
    expect(lookupKeysym('BackSpace')).toMatchObject({ key: 'Backspace', keyCode: 8 });
    expect(lookupKeysym('Prior')).toBe(lookupKeysym('Page_Up'));
    expect(lookupKeysym('F24')).toMatchObject({ key: 'F24', keyCode: 135 });
    expect(lookupKeysym('KP_7')).toMatchObject({ key: '7', code: 'Numpad7', keyCode: 103, location: 3 });
    expect(lookupKeysym('Control_R')).toMatchObject({ code: 'ControlRight', location: 2, modifier: 'Control' });
  });

  it('takes single characters, with Shift where a US keyboard needs it', () => {
    expect(lookupKeysym('a')).toMatchObject({ key: 'a', code: 'KeyA', keyCode: 65, text: 'a' });
    expect(lookupKeysym('A')).toMatchObject({ code: 'KeyA', needsShift: true, shiftedText: 'A' });
    expect(lookupKeysym('!')).toMatchObject({ code: 'Digit1', needsShift: true });
    expect(lookupKeysym(' ')).toMatchObject({ code: 'Space', text: ' ' });
    expect(lookupKeysym('é')).toBeUndefined();
  });

  it('resolves punctuation names and aliases, case-insensitively', () => {
    expect(lookupKeysym('exclam')).toBe(CHAR_KEYS.get('!'));
    expect(lookupKeysym('bracketleft')).toMatchObject({ code: 'BracketLeft' });
    expect(lookupKeysym('ctrl')).toMatchObject({ modifier: 'Control', location: 1 });
    expect(lookupKeysym('CMD')).toMatchObject({ modifier: 'Meta' });
    expect(lookupKeysym('ESC')).toMatchObject({ key: 'Escape' });
    expect(lookupKeysym('return')).toMatchObject({ key: 'Enter' });
    expect(lookupKeysym('f5')).toMatchObject({ key: 'F5' });
    expect(lookupKeysym('F25')).toBeUndefined();
    expect(lookupKeysym('NoSuchKey')).toBeUndefined();
  });

  it.each([
    ['Prior', 'PageUp', 'PageUp', 33],
    ['Tab', 'Tab', 'Tab', 9],
    ['Escape', 'Escape', 'Escape', 27],
    ['F12', 'F12', 'F12', 123],
    ['Page_Down', 'PageDown', 'PageDown', 34],
    ['Left', 'ArrowLeft', 'ArrowLeft', 37],
    ['Delete', 'Delete', 'Delete', 46],
    ['space', ' ', 'Space', 32],
    ['5', '5', 'Digit5', 53],
    ['slash', '/', 'Slash', 191],
    ['Super_L', 'Meta', 'MetaLeft', 91],
  ])('%s → key %s, code %s, keyCode %i', (name, key, code, keyCode) => {
    expect(lookupKeysym(name)).toMatchObject({ key, code, keyCode });
  });

  it('keeps single characters case-sensitive ("T" is Shift+t) while names are not', () => {
    expect(lookupKeysym('T')).toMatchObject({ code: 'KeyT', needsShift: true });
    expect(lookupKeysym('t')?.needsShift).toBeUndefined();
    expect(lookupKeysym('CTRL')).toMatchObject({ key: 'Control' });
    expect(lookupKeysym('super')).toMatchObject({ key: 'Meta' });
    expect(lookupKeysym('Alt')).toMatchObject({ key: 'Alt', modifier: 'Alt' });
  });

  it('covers every printable US character exactly once per key', () => {
    const printable = [...' `1234567890-=[]\\;\',./~!@#$%^&*()_+{}|:"<>?abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'];
    for (const ch of printable) expect(CHAR_KEYS.get(ch)?.[CHAR_KEYS.get(ch)?.needsShift ? 'shiftedText' : 'text'], ch).toBe(ch);
  });
});

describe('parseCombo', () => {
  it('splits modifiers and the key in written order', () => {
    expect(parseCombo('ctrl+shift+Tab').map((k) => k.key)).toEqual(['Control', 'Shift', 'Tab']);
    expect(parseCombo(' Alt + F4 ').map((k) => k.key)).toEqual(['Alt', 'F4']);
    expect(parseCombo('Ctrl+t').map((k) => k.code)).toEqual(['ControlLeft', 'KeyT']);
  });

  it('reads + alone as the plus key', () => {
    expect(parseCombo('+').map((k) => k.key)).toEqual(['=']);
    expect(parseCombo('+')[0].needsShift).toBe(true);
    expect(parseCombo('plus')[0]).toMatchObject({ code: 'Equal', needsShift: true });
  });

  it('names the unknown key and the combo it was in', () => {
    expect(() => parseCombo('ctrl+Hyper')).toThrow(new UnknownKeyError('Hyper', 'ctrl+Hyper'));
    expect(() => parseCombo('ctrl+Hyper')).toThrow('unknown key "Hyper" in "ctrl+Hyper"');
    expect(() => parseCombo('Hyper')).toThrow('unknown key "Hyper"');
    expect(() => parseCombo('ctrl++')).toThrow(UnknownKeyError);
    expect(() => parseCombo('')).toThrow(UnknownKeyError);
    expect(() => parseCombo('Ctrl+')).toThrow(UnknownKeyError);
  });
});
