const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

/** While the server samples the tail (over 1,000 matching lines a second), how many it skipped. */
export function SamplingNotice({ sampling }: { sampling: { skipped: number; active: boolean } }) {
  if (!sampling.active) return null;
  return (
    <p className="notice" data-testid="sampling">
      Live tail is sampling: more than 1,000 lines a second match; {sampling.skipped.toLocaleString()} skipped so far.
    </p>
  );
}

/** Lines held back while the reader is scrolled up, and the way to show them. */
export function NewLinesButton({ pending, onResume }: { pending: number; onResume: () => void }) {
  if (pending <= 0) return null;
  return (
    <button type="button" className="new-lines" onClick={onResume} data-testid="new-lines">
      {plural(pending, 'new line')} — resume
    </button>
  );
}
