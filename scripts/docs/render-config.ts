/**
 * docs/operate/configuration.md's table: every `serve` flag and environment setting of
 * src/engine/config-options.ts, the table the CLI itself parses and prints `--help` from.
 */
import { CONFIG_OPTIONS, defaultText, type ConfigOption } from '../../src/engine/config-options.js';

/** A table cell: one line, pipes escaped. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function flagCell(o: ConfigOption): string {
  return o.flag ? `\`--${o.flag}${o.value ? ` ${o.value}` : ''}\`` : '—';
}

function envCell(o: ConfigOption): string {
  return o.env ? `\`${o.env}${o.kind === 'boolean' ? '=1' : ''}\`` : '—';
}

export function renderConfig(): string {
  const head = ['| Flag | Environment variable | Default | Meaning |', '|---|---|---|---|'];
  const row = (o: ConfigOption) => `| ${flagCell(o)} | ${envCell(o)} | ${cell(defaultText(o))} | ${cell(o.meaning)} |`;
  return [
    '### Flags',
    '',
    'A flag wins over its variable; the variable over the default.',
    '',
    ...head,
    ...CONFIG_OPTIONS.filter((o) => o.flag).map(row),
    '',
    '### Environment only',
    '',
    ...head,
    ...CONFIG_OPTIONS.filter((o) => !o.flag).map(row),
  ].join('\n');
}
