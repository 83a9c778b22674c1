/**
 * X11 keysym names (as xdotool takes them: `Return`, `BackSpace`, `ctrl+shift+Tab`, `F5`, `a`)
 * mapped to the DOM key/code/keyCode triples CDP `Input.dispatchKeyEvent` needs, on a US
 * layout. Pure tables plus lookup; `key-input.ts` turns the result into events.
 */

export type Modifier = 'Alt' | 'Control' | 'Meta' | 'Shift';

/** CDP `modifiers` bit per modifier. */
export const MODIFIER_BIT: Record<Modifier, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

export interface KeyDef {
  /** DOM `key` without Shift, and with Shift held (printable keys). */
  key: string;
  shiftedKey?: string;
  code: string;
  keyCode: number;
  /** 1 = left, 2 = right, 3 = numpad. */
  location?: number;
  /** Character the key types (printable keys, Enter). */
  text?: string;
  shiftedText?: string;
  /** Set on modifier keys. */
  modifier?: Modifier;
  /** The keysym itself needs Shift (e.g. `A`, `exclam`). */
  needsShift?: boolean;
}

// [code, keyCode, unshifted, shifted] for the printable keys of a US keyboard.
const PRINTABLE: [string, number, string, string][] = [
  ['Backquote', 192, '`', '~'],
  ['Digit1', 49, '1', '!'],
  ['Digit2', 50, '2', '@'],
  ['Digit3', 51, '3', '#'],
  ['Digit4', 52, '4', '$'],
  ['Digit5', 53, '5', '%'],
  ['Digit6', 54, '6', '^'],
  ['Digit7', 55, '7', '&'],
  ['Digit8', 56, '8', '*'],
  ['Digit9', 57, '9', '('],
  ['Digit0', 48, '0', ')'],
  ['Minus', 189, '-', '_'],
  ['Equal', 187, '=', '+'],
  ['BracketLeft', 219, '[', '{'],
  ['BracketRight', 221, ']', '}'],
  ['Backslash', 220, '\\', '|'],
  ['Semicolon', 186, ';', ':'],
  ['Quote', 222, "'", '"'],
  ['Comma', 188, ',', '<'],
  ['Period', 190, '.', '>'],
  ['Slash', 191, '/', '?'],
  ['Space', 32, ' ', ' '],
  ...[...'abcdefghijklmnopqrstuvwxyz'].map((c): [string, number, string, string] => [
    `Key${c.toUpperCase()}`,
    c.toUpperCase().charCodeAt(0),
    c,
    c.toUpperCase(),
  ]),
];

/** Every character a US keyboard types, with the key that types it. */
export const CHAR_KEYS = new Map<string, KeyDef>();
for (const [code, keyCode, lower, upper] of PRINTABLE) {
  const base = { code, keyCode, key: lower, shiftedKey: upper, text: lower, shiftedText: upper };
  CHAR_KEYS.set(lower, base);
  if (upper !== lower) CHAR_KEYS.set(upper, { ...base, needsShift: true });
}

// X11 names of the punctuation keysyms.
const PUNCTUATION_NAMES: Record<string, string> = {
  space: ' ',
  exclam: '!',
  quotedbl: '"',
  numbersign: '#',
  dollar: '$',
  percent: '%',
  ampersand: '&',
  apostrophe: "'",
  quoteright: "'",
  parenleft: '(',
  parenright: ')',
  asterisk: '*',
  plus: '+',
  comma: ',',
  minus: '-',
  period: '.',
  slash: '/',
  colon: ':',
  semicolon: ';',
  less: '<',
  equal: '=',
  greater: '>',
  question: '?',
  at: '@',
  bracketleft: '[',
  backslash: '\\',
  bracketright: ']',
  asciicircum: '^',
  underscore: '_',
  grave: '`',
  quoteleft: '`',
  braceleft: '{',
  bar: '|',
  braceright: '}',
  asciitilde: '~',
};

const NAMED: Record<string, KeyDef> = {
  Return: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  KP_Enter: { key: 'Enter', code: 'NumpadEnter', keyCode: 13, text: '\r', location: 3 },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  ISO_Left_Tab: { key: 'Tab', code: 'Tab', keyCode: 9, needsShift: true },
  BackSpace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  Prior: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  Next: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  Left: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  Up: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  Right: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Down: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  Shift_L: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1, modifier: 'Shift' },
  Shift_R: { key: 'Shift', code: 'ShiftRight', keyCode: 16, location: 2, modifier: 'Shift' },
  Control_L: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1, modifier: 'Control' },
  Control_R: { key: 'Control', code: 'ControlRight', keyCode: 17, location: 2, modifier: 'Control' },
  Alt_L: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1, modifier: 'Alt' },
  Alt_R: { key: 'Alt', code: 'AltRight', keyCode: 18, location: 2, modifier: 'Alt' },
  Meta_L: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1, modifier: 'Meta' },
  Meta_R: { key: 'Meta', code: 'MetaRight', keyCode: 92, location: 2, modifier: 'Meta' },
  Super_L: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1, modifier: 'Meta' },
  Super_R: { key: 'Meta', code: 'MetaRight', keyCode: 92, location: 2, modifier: 'Meta' },
  Caps_Lock: { key: 'CapsLock', code: 'CapsLock', keyCode: 20 },
  Num_Lock: { key: 'NumLock', code: 'NumLock', keyCode: 144 },
  Scroll_Lock: { key: 'ScrollLock', code: 'ScrollLock', keyCode: 145 },
  Pause: { key: 'Pause', code: 'Pause', keyCode: 19 },
  Print: { key: 'PrintScreen', code: 'PrintScreen', keyCode: 44 },
  Menu: { key: 'ContextMenu', code: 'ContextMenu', keyCode: 93 },
  KP_Add: { key: '+', code: 'NumpadAdd', keyCode: 107, text: '+', location: 3 },
  KP_Subtract: { key: '-', code: 'NumpadSubtract', keyCode: 109, text: '-', location: 3 },
  KP_Multiply: { key: '*', code: 'NumpadMultiply', keyCode: 106, text: '*', location: 3 },
  KP_Divide: { key: '/', code: 'NumpadDivide', keyCode: 111, text: '/', location: 3 },
  KP_Decimal: { key: '.', code: 'NumpadDecimal', keyCode: 110, text: '.', location: 3 },
};
for (let i = 1; i <= 24; i++) NAMED[`F${i}`] = { key: `F${i}`, code: `F${i}`, keyCode: 111 + i };
for (let i = 0; i <= 9; i++) NAMED[`KP_${i}`] = { key: String(i), code: `Numpad${i}`, keyCode: 96 + i, text: String(i), location: 3 };
for (const [name, ch] of Object.entries(PUNCTUATION_NAMES)) NAMED[name] = CHAR_KEYS.get(ch)!;
NAMED.Page_Up = NAMED.Prior;
NAMED.Page_Down = NAMED.Next;

// xdotool's own aliases (matched case-insensitively) and common spellings.
const ALIASES: Record<string, string> = {
  ctrl: 'Control_L',
  control: 'Control_L',
  shift: 'Shift_L',
  alt: 'Alt_L',
  meta: 'Meta_L',
  super: 'Super_L',
  win: 'Super_L',
  cmd: 'Super_L',
  command: 'Super_L',
  enter: 'Return',
  esc: 'Escape',
  del: 'Delete',
  backspace: 'BackSpace',
  pageup: 'Prior',
  pagedown: 'Next',
  arrowleft: 'Left',
  arrowright: 'Right',
  arrowup: 'Up',
  arrowdown: 'Down',
  ins: 'Insert',
};
const NAMED_LOWER = new Map(Object.keys(NAMED).map((k) => [k.toLowerCase(), NAMED[k]]));

/** The key a keysym name (or a single character) denotes, or undefined when unknown. */
export function lookupKeysym(name: string): KeyDef | undefined {
  if (name.length === 1) return CHAR_KEYS.get(name);
  const exact = NAMED[name];
  if (exact) return exact;
  const lower = name.toLowerCase();
  const alias = ALIASES[lower];
  return alias ? NAMED[alias] : NAMED_LOWER.get(lower);
}

export class UnknownKeyError extends Error {
  constructor(
    readonly keysym: string,
    readonly combo: string,
  ) {
    super(combo === keysym ? `unknown key "${keysym}"` : `unknown key "${keysym}" in "${combo}"`);
  }
}

/** Splits `Ctrl+Shift+Tab` into its keys (modifiers first, as written). `+` alone is the plus key. */
export function parseCombo(combo: string): KeyDef[] {
  const parts = combo === '+' ? ['+'] : combo.split('+').map((s) => s.trim());
  if (parts.some((p) => p === '')) throw new UnknownKeyError(combo, combo);
  return parts.map((p) => {
    const def = lookupKeysym(p);
    if (!def) throw new UnknownKeyError(p, combo);
    return def;
  });
}
