/**
 * Keyboard actions: `press_key` (keysym combos, optional hold duration), `type` (text, with an
 * optional delay between keys) and the `hold_keys` wrapper other actions use. Keys go to the
 * active page as CDP key events; characters a US keyboard cannot type are inserted as text.
 */
import type { Protocol } from 'devtools-protocol';
import { CHAR_KEYS, MODIFIER_BIT, UnknownKeyError, lookupKeysym, parseCombo, type KeyDef } from './keysyms.js';
import { InputError, sleep, type InputTarget } from './input-target.js';

const SHORTCUT_MODIFIERS = MODIFIER_BIT.Alt | MODIFIER_BIT.Control | MODIFIER_BIT.Meta;

/** CDP `Input.dispatchKeyEvent` params for pressing or releasing `def` with `modifiers` held. */
export function keyEventParams(def: KeyDef, down: boolean, modifiers: number): Protocol.Input.DispatchKeyEventRequest {
  const shift = (modifiers & MODIFIER_BIT.Shift) !== 0;
  const key = shift && def.shiftedKey ? def.shiftedKey : def.key;
  // Ctrl/Alt/Meta chords are shortcuts, not typing.
  const text = down && (modifiers & SHORTCUT_MODIFIERS) === 0 ? (shift ? (def.shiftedText ?? def.text) : def.text) : undefined;
  const params: Protocol.Input.DispatchKeyEventRequest = {
    type: down ? (text ? 'keyDown' : 'rawKeyDown') : 'keyUp',
    key,
    code: def.code,
    windowsVirtualKeyCode: def.keyCode,
    nativeVirtualKeyCode: def.keyCode,
    modifiers,
    location: def.location ?? 0,
  };
  if (text) {
    params.text = text;
    params.unmodifiedText = text;
  }
  return params;
}

/** Resolves keysyms up front so a bad name fails before anything is pressed. */
export function resolveKeys(names: string[], field: string): KeyDef[][] {
  return names.map((n, i) => {
    try {
      return parseCombo(n);
    } catch (err) {
      if (err instanceof UnknownKeyError) throw new InputError(`${field}[${i}]: ${err.message}`, `${field}[${i}]`);
      throw err;
    }
  });
}

async function down(t: InputTarget, def: KeyDef): Promise<void> {
  if (def.modifier) t.modifiers |= MODIFIER_BIT[def.modifier];
  const mods = t.modifiers | (def.needsShift ? MODIFIER_BIT.Shift : 0);
  await t.page('Input.dispatchKeyEvent', keyEventParams(def, true, mods));
}

async function up(t: InputTarget, def: KeyDef): Promise<void> {
  const mods = t.modifiers | (def.needsShift ? MODIFIER_BIT.Shift : 0);
  if (def.modifier) t.modifiers &= ~MODIFIER_BIT[def.modifier];
  await t.page('Input.dispatchKeyEvent', keyEventParams(def, false, def.modifier ? t.modifiers : mods));
}

/** Runs `fn` with the `hold_keys` pressed, releasing them afterwards even when it fails. */
export async function withHeldKeys<T>(t: InputTarget, holdKeys: string[] | undefined, fn: () => Promise<T>): Promise<T> {
  if (!holdKeys?.length) return fn();
  const defs = holdKeys.map((k, i) => {
    const def = lookupKeysym(k);
    if (!def) throw new InputError(`hold_keys[${i}]: unknown key "${k}"`, `hold_keys[${i}]`);
    return def;
  });
  const pressed: KeyDef[] = [];
  try {
    for (const d of defs) {
      await down(t, d);
      pressed.push(d);
    }
    return await fn();
  } finally {
    for (const d of pressed.reverse()) await up(t, d).catch(() => {});
  }
}

export interface PressKeyParams {
  keys: string[];
  duration?: number;
  hold_keys?: string[];
}

export async function pressKey(t: InputTarget, p: PressKeyParams, signal?: AbortSignal): Promise<void> {
  const combos = resolveKeys(p.keys, 'keys');
  await withHeldKeys(t, p.hold_keys, async () => {
    for (const combo of combos) {
      const pressed: KeyDef[] = [];
      try {
        for (const def of combo) {
          await down(t, def);
          pressed.push(def);
        }
        await sleep(p.duration ?? 0, signal);
      } finally {
        for (const def of pressed.reverse()) await up(t, def);
      }
    }
  });
}

export interface TypeParams {
  text: string;
  delay?: number;
}

/** Types `text` key by key (so pages see keydown/keypress/input/keyup for each character). */
export async function typeText(t: InputTarget, p: TypeParams, signal?: AbortSignal): Promise<void> {
  let first = true;
  for (const ch of p.text) {
    if (signal?.aborted) throw new InputError('session ended');
    if (!first) await sleep(p.delay ?? 0, signal);
    first = false;
    const def = ch === '\n' || ch === '\r' ? lookupKeysym('Return')! : ch === '\t' ? lookupKeysym('Tab')! : CHAR_KEYS.get(ch);
    if (!def) {
      await t.page('Input.insertText', { text: ch });
      continue;
    }
    const mods = t.modifiers | (def.needsShift ? MODIFIER_BIT.Shift : 0);
    await t.page('Input.dispatchKeyEvent', keyEventParams(def, true, mods));
    await t.page('Input.dispatchKeyEvent', keyEventParams(def, false, mods));
  }
}
