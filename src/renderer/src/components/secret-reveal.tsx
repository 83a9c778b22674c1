/**
 * Shows a freshly issued API key exactly once, with a copy button. The plaintext lives only in
 * this component's props; closing the dialog drops it.
 */
import { useState } from 'react';
import { Button } from './ui';

async function copyText(text: string, fallback: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (permissions, insecure context): select the text and copy it.
    fallback?.select();
    return document.execCommand?.('copy') ?? false;
  }
}

export function SecretReveal({ secret, label }: { secret: string; label: string }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  let input: HTMLInputElement | null = null;
  return (
    <div className="secret">
      <p className="banner banner-warn">Copy this key now. It is shown only once and cannot be retrieved later.</p>
      <div className="secret-row">
        <input ref={(el) => void (input = el)} className="mono" readOnly value={secret} aria-label={label} onFocus={(e) => e.currentTarget.select()} />
        <Button
          variant="primary"
          onClick={async () => {
            setCopied(await copyText(secret, input));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
    </div>
  );
}
