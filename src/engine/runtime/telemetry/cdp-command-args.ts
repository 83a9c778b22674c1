/**
 * Reading one CDP command's `params` for a `cdp_command` event: typed getters that say "absent"
 * for a missing argument and throw `MalformedCommand` for one of the wrong JSON type (Chromium
 * refuses such a command too, so the event is dropped and counted rather than guessed at), and
 * the redactions: a length instead of text, a count instead of paths, a scheme instead of a URL,
 * an enum value or `other` instead of free text.
 */

export class MalformedCommand extends Error {}

/** Opaque ids (targets, frames, contexts, remote objects) are clipped: a longer one is not a real id. */
export const ID_LIMIT = 128;

export class CommandArgs {
  constructor(private readonly p: Record<string, unknown>) {}

  private get(key: string, type: 'number' | 'string' | 'boolean' | 'object'): unknown {
    const v = this.p[key];
    if (v === undefined || v === null) return undefined;
    if (type === 'object' ? typeof v !== 'object' : typeof v !== type) throw new MalformedCommand(key);
    if (type === 'number' && !Number.isFinite(v)) throw new MalformedCommand(key);
    return v;
  }

  num(key: string): number | undefined {
    return this.get(key, 'number') as number | undefined;
  }

  bool(key: string): boolean | undefined {
    return this.get(key, 'boolean') as boolean | undefined;
  }

  /** An opaque identifier, clipped. */
  id(key: string): string | undefined {
    return (this.get(key, 'string') as string | undefined)?.slice(0, ID_LIMIT);
  }

  /** A value of a protocol enum; one the protocol does not define is `other` (never echoed). */
  oneOf<T extends string>(key: string, values: readonly T[]): T | 'other' | undefined {
    const v = this.get(key, 'string') as string | undefined;
    if (v === undefined) return undefined;
    return (values as readonly string[]).includes(v) ? (v as T) : 'other';
  }

  /** Characters of a text argument (code points), never the text. */
  length(key: string): number | undefined {
    const v = this.get(key, 'string') as string | undefined;
    return v === undefined ? undefined : [...v].length;
  }

  /** Whether a text argument was given (non-empty), never its value. */
  present(key: string): boolean | undefined {
    const v = this.get(key, 'string') as string | undefined;
    return v === undefined ? undefined : v.length > 0;
  }

  /** Number of entries of an array argument. */
  count(key: string): number | undefined {
    const v = this.p[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw new MalformedCommand(key);
    return v.length;
  }

  /** A nested object argument (`clip`, `bounds`, `data`), read the same way. */
  object(key: string): CommandArgs | undefined {
    const v = this.get(key, 'object');
    if (v === undefined) return undefined;
    if (Array.isArray(v)) throw new MalformedCommand(key);
    return new CommandArgs(v as Record<string, unknown>);
  }

  /** The entries of an array argument that are objects (`touchPoints`, drag `items`). */
  objects(key: string): CommandArgs[] {
    const v = this.p[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new MalformedCommand(key);
    return v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)).map((x) => new CommandArgs(x));
  }

  /** The scheme of a URL argument (`https`, `about`, `data`), never the rest of it. */
  urlScheme(key: string): string | undefined {
    const v = this.get(key, 'string') as string | undefined;
    if (v === undefined) return undefined;
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]{0,31}):/.exec(v.trim());
    return m ? m[1].toLowerCase() : undefined;
  }

  has(key: string): boolean {
    return this.p[key] !== undefined && this.p[key] !== null;
  }
}

/**
 * Keys that command the page rather than type into it (UI Events `key` values): reported by
 * name. Every other key — anything that produces a character — is only counted.
 */
const NAMED_KEYS = new Set(
  (
    'Alt AltGraph CapsLock Control Fn FnLock Hyper Meta NumLock ScrollLock Shift Super Symbol SymbolLock ' +
    'Enter Tab ArrowDown ArrowLeft ArrowRight ArrowUp End Home PageDown PageUp ' +
    'Backspace Clear Copy CrSel Cut Delete EraseEof ExSel Insert Paste Redo Undo ' +
    'Accept Again Attn Cancel ContextMenu Escape Execute Find Help Pause Play Props Select ZoomIn ZoomOut ' +
    'BrightnessDown BrightnessUp Eject LogOff Power PowerOff PrintScreen Hibernate Standby WakeUp ' +
    'AudioVolumeDown AudioVolumeUp AudioVolumeMute MediaPlayPause MediaStop MediaTrackNext MediaTrackPrevious ' +
    'BrowserBack BrowserForward BrowserRefresh BrowserHome BrowserSearch Dead Unidentified Process Compose Convert NonConvert'
  ).split(' '),
);

export function namedKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  return NAMED_KEYS.has(key) || /^F([1-9]|1\d|2[0-4])$/.test(key) ? key : undefined;
}

const MIME_CATEGORIES = ['text', 'image', 'audio', 'video', 'application', 'font', 'model', 'multipart', 'message'] as const;

/** Distinct top-level MIME types of drag items, sorted; subtypes and contents never leave. */
export function mimeCategories(items: CommandArgs[]): string[] | undefined {
  if (items.length === 0) return undefined;
  const out = new Set<string>();
  for (const it of items) {
    const top = (it.id('mimeType') ?? '').split('/')[0].trim().toLowerCase();
    out.add((MIME_CATEGORIES as readonly string[]).includes(top) ? top : 'other');
  }
  return [...out].sort();
}
