import type { ResultsTab } from '../search/url-state.js';

/** Which of the search's answers is shown under the timeline: its lines, or its patterns (the URL's `tab`). */
export function ResultsTabs({ tab, onTab }: { tab: ResultsTab; onTab: (tab: ResultsTab) => void }) {
  const choice = (value: ResultsTab, label: string) => (
    <button type="button" role="tab" aria-selected={tab === value} onClick={() => onTab(value)} data-testid={`tab-${value}`}>
      {label}
    </button>
  );
  return (
    <div className="results-tabs" role="tablist" aria-label="Results">
      {choice('lines', 'Lines')}
      {choice('patterns', 'Patterns')}
    </div>
  );
}
