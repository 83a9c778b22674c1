/**
 * Copies a text the screen does not show in full (a tokenised URL, a snippet with its token):
 * the Clipboard API, else a hidden textarea and `execCommand('copy')` (an insecure origin, or
 * the permission refused). Says "Copied" for a moment; the text itself never appears.
 */
import { useState } from 'react';
import { Button } from '../components/ui';
import { notify } from '../stores/toasts';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    try {
      return document.execCommand?.('copy') ?? false;
    } finally {
      area.remove();
    }
  }
}

export function CopyButton({ text, label, what }: { text: string | undefined; label: string; what: string }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="ghost"
      aria-label={label}
      disabled={!text}
      onClick={async () => {
        if (!text) return;
        const ok = await copyText(text);
        setCopied(ok);
        notify(ok ? `${what} copied (with its token)` : `Could not copy the ${what}`);
        if (ok) setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}
