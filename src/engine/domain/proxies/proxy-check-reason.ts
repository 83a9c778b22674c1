/**
 * A failed proxy check's reason as the API keeps it (`status_reason`): one line, at most 300
 * characters, and never the proxy's password (an error message can quote what it was given).
 */
const MAX_CHARS = 300;

export function checkReason(reason: string | undefined, upstream: { password?: string }): string {
  let text = (reason ?? 'the check failed').replace(/\s+/g, ' ').trim() || 'the check failed';
  if (upstream.password) {
    text = text.split(upstream.password).join('***');
    const encoded = encodeURIComponent(upstream.password);
    if (encoded !== upstream.password) text = text.split(encoded).join('***');
  }
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}
