/**
 * What a command prints: with `--json`, machine output only (one JSON document on stdout, or
 * one JSON object per line for a stream); without it, tables and short lines for people.
 * Messages for people that are not the result go to stderr, so stdout stays the result.
 */
export interface Output {
  json: boolean;
  /** The command's result: JSON, or what `human` prints. */
  result(value: unknown, human: () => void): void;
  /** One event of a stream: a JSON line, or what `human` prints. */
  event(value: unknown, human: () => void): void;
  /** A note for people (stderr; silent with --json). */
  note(line: string): void;
}

export function makeOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
      else human();
    },
    event(value, human) {
      if (json) process.stdout.write(JSON.stringify(value) + '\n');
      else human();
    },
    note(line) {
      if (!json) process.stderr.write(line + '\n');
    },
  };
}

type Cell = string | number | boolean | null | undefined;

/** Rows as aligned columns under a header; `(none)` when empty. */
export function printTable(header: string[], rows: Cell[][]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const text = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  for (const r of text) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ') + '\n');
}

/** `key  value` lines for one object's chosen fields (absent ones left out). */
export function printFields(fields: Array<[string, Cell]>): void {
  const shown = fields.filter(([, v]) => v !== undefined && v !== null && v !== '');
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  for (const [k, v] of shown) process.stdout.write(`${k.padEnd(width)}  ${String(v)}\n`);
}
