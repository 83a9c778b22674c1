/**
 * docs/reference/errors.md's body: one row per error `code` (collect-errors.ts), with the HTTP
 * statuses it comes with, what it says (the messages found, run-time parts as `…`) and the
 * modules that raise it. No line numbers: the page changes when an error does, not when code moves.
 */
import type { CollectedErrors, ErrorUse } from './collect-errors.js';

/** Messages shown per code; the rest are counted. */
const MAX_MESSAGES = 4;

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n+/g, ' ').replace(/`/g, "'");
}

function link(file: string): string {
  return `[${file.replace(/^src\/engine\//, '')}](../../${file})`;
}

export function renderErrors(collected: CollectedErrors): string {
  const byCode = new Map<string, ErrorUse[]>();
  for (const u of collected.uses) byCode.set(u.code, [...(byCode.get(u.code) ?? []), u]);
  const rows = [...byCode.keys()].sort().map((code) => {
    const uses = byCode.get(code)!;
    const statuses = [...new Set(uses.flatMap((u) => u.statuses))].sort((a, b) => a - b);
    const computed = uses.some((u) => !u.statuses.length);
    const status = [...statuses.map(String), ...(computed ? ['varies'] : [])].join(', ');
    const messages = [...new Set(uses.flatMap((u) => (u.message ? [u.message] : [])))].sort();
    const shown = messages.slice(0, MAX_MESSAGES).map((m) => `“${cell(m)}”`);
    if (messages.length > MAX_MESSAGES) shown.push(`and ${messages.length - MAX_MESSAGES} more`);
    const files = [...new Set(uses.map((u) => u.file))].sort().map(link);
    return `| \`${code}\` | ${status} | ${shown.join('<br>')} | ${files.join(', ')} |`;
  });
  const lines = [
    `${byCode.size} codes. A message with \`…\` has parts filled in at run time.`,
    '',
    '| Code | HTTP status | When (its messages) | Raised in |',
    '|---|---|---|---|',
    ...rows,
  ];
  const computed = [...new Set(collected.computed.map((c) => c.replace(/:\d+$/, '')))].sort();
  if (computed.length) lines.push('', `Codes chosen at run time (not listed above) are raised in: ${computed.map(link).join(', ')}.`);
  return lines.join('\n');
}
