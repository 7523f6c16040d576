import { type ReactNode, useMemo, useState } from 'react';
import type { Filters, LogLine } from '../api-client/client.js';
import { ResultsTabs } from '../patterns/ResultsTabs.js';
import { keepChoice, readChoice } from '../shared/storage.js';
import { Histogram } from './Histogram.js';
import { LineList } from './LineList.js';
import { ListToolbar } from './ListToolbar.js';
import { MatchPattern } from './Marked.js';
import { queryTerms } from './query-terms.js';
import type { ViewerState } from './url-state.js';
import type { useResults } from './useResults.js';
import type { useSelection } from './useSelection.js';

interface Props {
  state: ViewerState;
  filters: Filters;
  update: (change: Partial<ViewerState>) => void;
  results: ReturnType<typeof useResults>;
  selection: ReturnType<typeof useSelection>;
  /** Field names seen in the results, offered as columns. */
  fields: Set<string>;
  /** Keep the newest line in view as lines arrive (live tail, not paused). */
  follow: boolean;
  onAtBottomChange: (atBottom: boolean) => void;
  onFilter: (field: string, value: string, exclude?: boolean) => void;
  onContext: (line: LogLine) => void;
  /** Shown under the timeline (live tail's sampling notice). */
  notice: ReactNode;
  /** Shown under the lines (live tail's count of lines held back). */
  footer: ReactNode;
  /** The Patterns tab (src/web/patterns), told whether it is shown. */
  patterns: (shown: boolean) => ReactNode;
}

/** The search's answer: its timeline, then its lines with their columns, marked where they match. */
export function ResultsPane({ state, filters, update, results, selection, fields, follow, onAtBottomChange, onFilter, onContext, notice, footer, patterns }: Props) {
  const { pages, timeline, status } = results;
  const { tab } = state;
  const { lines } = pages;
  const [raw, setRaw] = useState(() => readChoice('raw') === '1');
  const pattern = useMemo(() => queryTerms(state.q).pattern, [state.q]);
  return (
    <main className={`results ${status.stale ? 'stale' : ''}`} data-tab={tab} data-stale={status.stale} data-answered={status.answered === filters ? 'current' : 'pending'}>
      <Histogram
        buckets={timeline.buckets}
        interval={timeline.interval}
        onZoom={(from, to) => update({ range: 'custom', from, to, live: false })}
        onJump={(bucket) => update({ range: 'custom', from: bucket.ts, to: bucket.ts + timeline.interval - 1, live: false })}
      />
      {notice}
      <ResultsTabs tab={tab} onTab={(next) => update({ tab: next })} />
      {patterns(tab === 'patterns')}
      {status.loading && lines.length === 0 && <p className="muted">Searching…</p>}
      {!status.loading && lines.length === 0 && !status.queryError && !status.searchError && <p className="muted empty">No lines match in this range.</p>}
      <ListToolbar
        columns={state.columns}
        onColumns={(columns) => update({ columns })}
        fields={[...fields].sort()}
        raw={raw}
        onRaw={(next) => {
          keepChoice('raw', next ? '1' : '0');
          setRaw(next);
        }}
      />
      {status.stale && lines.length > 0 && (
        <p className="stale-note muted" data-testid="stale-note">
          These are the results of the previous search.
        </p>
      )}
      <MatchPattern.Provider value={pattern}>
        <LineList
          lines={lines}
          columns={state.columns}
          raw={raw}
          selected={selection.selected}
          expanded={selection.expanded}
          onSelect={selection.setSelected}
          onToggle={selection.toggle}
          onFilter={onFilter}
          onContext={onContext}
          onReachTop={() => void pages.loadOlder()}
          onAtBottomChange={onAtBottomChange}
          follow={follow}
          prepended={pages.prepended}
          searchSerial={status.serial}
        />
      </MatchPattern.Provider>
      {footer}
    </main>
  );
}
