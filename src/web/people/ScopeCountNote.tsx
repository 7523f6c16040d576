import { formatCount } from '../usage/usage-format.js';
import type { ScopeCount } from './useScopeCount.js';

/** How many of the last day's lines a scope being edited lets through, as the editing admin sees them. */
export function ScopeCountNote({ count, empty }: { count: ScopeCount; empty: boolean }) {
  let text: string;
  if (count.state === 'counting') text = 'Counting the last day’s lines…';
  else if (count.state === 'failed') text = 'The lines cannot be counted until the scope is a valid search.';
  else if (empty) text = `An empty scope limits nothing: members see all ${formatCount(count.total)} lines of the last day.`;
  else text = `Lets through ${formatCount(count.matched)} of the ${formatCount(count.total)} lines of the last day (of the lines you can see).`;
  return (
    <p id="scope-count" className="muted" role="status" data-testid="scope-count" data-state={count.state} data-matched={count.state === 'counted' ? count.matched : undefined}>
      {text}
    </p>
  );
}
