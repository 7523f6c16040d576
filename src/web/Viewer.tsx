import { useMemo, useRef, useState } from 'react';
import { type LogLine, type View, api, filterParams } from './api.js';
import { ContextPanel } from './components/ContextPanel.js';
import { ExportMenu } from './components/ExportMenu.js';
import { FilterMenus } from './components/FilterMenus.js';
import { Histogram } from './components/Histogram.js';
import { quote } from './components/LineDetails.js';
import { LineList } from './components/LineList.js';
import { ListToolbar } from './components/ListToolbar.js';
import { MatchPattern } from './components/Marked.js';
import { QueryErrors } from './components/QueryErrors.js';
import { SearchNotes } from './components/SearchNotes.js';
import { SessionControls } from './components/SessionControls.js';
import { UsagePage } from './components/UsagePage.js';
import { TimeRangePicker } from './components/TimeRangePicker.js';
import { ViewEditor } from './components/ViewEditor.js';
import { ViewsSidebar } from './components/ViewsSidebar.js';
import { useAlertLink } from './hooks/useAlertLink.js';
import { useKeyboard } from './hooks/useKeyboard.js';
import { useLiveLines } from './hooks/useLiveLines.js';
import { useResults } from './hooks/useResults.js';
import { useSearchState } from './hooks/useSearchState.js';
import { useTheme } from './hooks/useTheme.js';
import { useViews } from './hooks/useViews.js';
import { BUILTIN_FIELDS, collectFields } from './line-fields.js';
import { queryHints } from './query-hints.js';
import { queryTerms } from './query-terms.js';
import type { Session } from './session.js';
import { ZoneContext, useZoneChoice } from './time-zone.js';
import { DEFAULT_COLUMNS, urlProblems } from './url-state.js';
import { columnsOf } from './view-columns.js';

const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

/** The signed-in viewer: the search bar, the views and filters, the timeline and the lines. */
export function Viewer({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const { state, filters, queryText, setQueryText, update, search } = useSearchState();
  const results = useResults(filters);
  const { lines, selected, setSelected, toggle, queryError, searchError } = results;
  const config = useViews();
  const live = useLiveLines(state.live && !queryError, filters, results);
  const { theme, toggle: toggleTheme } = useTheme();
  const { zone, setZone } = useZoneChoice();
  const [context, setContext] = useState<LogLine | null>(null);
  const [usage, setUsage] = useState(false);
  const [editor, setEditor] = useState<View | 'new' | null>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const [raw, setRaw] = useState(() => localStorage.getItem('logstead-raw') === '1');
  const [problems, setProblems] = useState(() => urlProblems());
  const pattern = useMemo(() => queryTerms(state.q).pattern, [state.q]);
  // Field names seen in any results this session: the columns offered and the names hints know.
  const seenFields = useRef({ names: new Set<string>(BUILTIN_FIELDS), read: new WeakSet<LogLine>() });
  const fields = useMemo(() => {
    collectFields(lines, seenFields.current.names, seenFields.current.read);
    return new Set(seenFields.current.names);
  }, [lines]);
  const hints = useMemo(() => queryHints(state.q, fields), [state.q, fields]);

  const openView = (view: View) =>
    search(view.query, { view: view.viewid, hosts: view.hosts, apps: view.apps, levels: view.levels, tags: view.tags, columns: columnsOf(view.description) ?? DEFAULT_COLUMNS });
  useAlertLink({
    state,
    views: config.views,
    viewsLoaded: config.loaded,
    lines,
    searchSerial: results.searchSerial,
    openView,
    openLine: (index, line) => {
      setSelected(index);
      results.setExpanded(new Set([line._id]));
    },
  });
  useKeyboard(searchBox, lines, selected, setSelected, toggle);

  const addToQuery = (field: string, value: string, exclude = false) => {
    const term = `${exclude ? '-' : ''}${field}:${quote(value)}`;
    search(state.q ? `${state.q} ${term}` : term);
  };

  const exportUrl = `/v1/export?${filterParams(filters, { size: '10000' })}`;

  return (
    <ZoneContext.Provider value={zone}>
    <div className="app">
      <header className="topbar">
        <span className="brand">Logstead</span>
        <form
          className="search"
          onSubmit={(event) => {
            event.preventDefault();
            update({ q: queryText.trim() });
          }}
        >
          <input
            ref={searchBox}
            className={`mono ${queryError ? 'invalid' : ''}`}
            value={queryText}
            onChange={(e) => setQueryText(e.target.value)}
            placeholder='Search, e.g. level:error app:api "timed out"   (press / to focus)'
            aria-label="Search query"
            aria-invalid={!!queryError}
            aria-describedby="query-error"
            data-testid="query"
          />
          <button type="submit" className="primary">
            Search
          </button>
        </form>
        <TimeRangePicker range={state.range} from={filters.from} to={filters.to} onChange={(change) => update(change)} />
        <label className="live-toggle">
          <input type="checkbox" checked={state.live} onChange={(e) => update({ live: e.target.checked, ...(e.target.checked && state.range === 'custom' ? { range: '1h' } : {}) })} data-testid="live" />
          Live tail
          {state.live && (
            <span className={`status ${live.status}`} data-testid="live-status" data-status={live.status}>
              {live.status === 'live' ? 'on' : `${live.status}…`}
            </span>
          )}
        </label>
        <ExportMenu exportUrl={exportUrl} disabled={!!(queryError || searchError)} email={session.features?.email !== false} />
        <SessionControls session={session} zone={zone} onZone={setZone} theme={theme} onToggleTheme={toggleTheme} onSignOut={onSignOut} onUsage={() => setUsage(true)} />
      </header>
      <QueryErrors query={state.q} queryError={queryError} searchError={searchError} />
      <SearchNotes hints={queryError ? [] : hints} problems={problems} onDismissProblems={() => setProblems([])} />
      <div className="body">
        <aside className="sidebar">
          <ViewsSidebar
            views={config.views}
            current={state.view}
            onOpen={openView}
            onEdit={(view) => setEditor(view)}
            onDelete={async (view) => {
              if (!window.confirm(`Delete the view “${view.name}” and its alerts?`)) return;
              await api('DELETE', `/v1/config/view/${view.viewid}`);
              if (state.view === view.viewid) update({ view: '' });
              await config.reload();
            }}
            onNew={() => setEditor('new')}
          />
          <FilterMenus facets={results.facets} selected={state} onChange={(kind, values) => update({ [kind]: values })} />
        </aside>
        <main className={`results ${results.stale ? 'stale' : ''}`} data-stale={results.stale} data-answered={results.answered === filters ? 'current' : 'pending'}>
          <Histogram
            buckets={results.timeline.buckets}
            interval={results.timeline.interval}
            onZoom={(from, to) => update({ range: 'custom', from, to, live: false })}
            onJump={(bucket) => update({ range: 'custom', from: bucket.ts, to: bucket.ts + results.timeline.interval - 1, live: false })}
          />
          {live.sampling.active && (
            <p className="notice" data-testid="sampling">
              Live tail is sampling: more than 1,000 lines a second match; {live.sampling.skipped.toLocaleString()} skipped so far.
            </p>
          )}
          {results.loading && lines.length === 0 && <p className="muted">Searching…</p>}
          {!results.loading && lines.length === 0 && !queryError && !searchError && <p className="muted empty">No lines match in this range.</p>}
          <ListToolbar
            columns={state.columns}
            onColumns={(columns) => update({ columns })}
            fields={[...fields].sort()}
            raw={raw}
            onRaw={(next) => {
              localStorage.setItem('logstead-raw', next ? '1' : '0');
              setRaw(next);
            }}
          />
          {results.stale && lines.length > 0 && (
            <p className="stale-note muted" data-testid="stale-note">
              These are the results of the previous search.
            </p>
          )}
          <MatchPattern.Provider value={pattern}>
          <LineList
            lines={lines}
            columns={state.columns}
            raw={raw}
            selected={selected}
            expanded={results.expanded}
            onSelect={setSelected}
            onToggle={toggle}
            onFilter={addToQuery}
            onContext={setContext}
            onReachTop={() => void results.loadOlder()}
            onAtBottomChange={live.setAtBottom}
            follow={state.live && !live.paused}
            prepended={results.prepended}
            searchSerial={results.searchSerial}
          />
          </MatchPattern.Provider>
          {live.pending > 0 && (
            <button type="button" className="new-lines" onClick={live.resume} data-testid="new-lines">
              {plural(live.pending, 'new line')} — resume
            </button>
          )}
        </main>
      </div>
      {context && <ContextPanel line={context} onClose={() => setContext(null)} />}
      {usage && <UsagePage onClose={() => setUsage(false)} />}
      {editor && (
        <ViewEditor
          view={editor === 'new' ? null : editor}
          search={{
            query: state.q,
            hosts: state.hosts,
            apps: state.apps,
            levels: state.levels,
            tags: state.tags,
            // An edited view keeps its own columns unless it is the one on screen.
            columns: editor === 'new' || editor.viewid === state.view ? state.columns : (columnsOf(editor.description) ?? DEFAULT_COLUMNS),
          }}
          presets={config.presets}
          categories={config.categories}
          onClose={() => setEditor(null)}
          onSaved={async (view) => {
            setEditor(null);
            await config.reload();
            update({ view: view.viewid });
          }}
        />
      )}
    </div>
    </ZoneContext.Provider>
  );
}
