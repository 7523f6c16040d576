import { useState } from 'react';

/** Copies text to the clipboard, and says so for a moment. */
export function CopyButton({ text, label, children = 'copy' }: { text: string; label: string; children?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={label}
      title={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        })
      }
    >
      {copied ? 'copied' : children}
    </button>
  );
}
