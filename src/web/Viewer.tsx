import { useRef, useState } from 'react';
import type { LogLine, Session, View } from './api-client/client.js';
import { AddToBoardButton } from './boards/AddToBoard.js';
import { useChartThis } from './boards/ChartThis.js';
import { searchGraph } from './boards/graph-form.js';
import { ContextPanel } from './search/ContextPanel.js';
import { ExportMenu } from './search/ExportMenu.js';
import { FieldsSidebar } from './search/FieldsSidebar.js';
import { FilterMenus } from './search/FilterMenus.js';
import { QueryErrors } from './search/QueryErrors.js';
import { RestoreOffer } from './search/RestoreOffer.js';
import { ResultsPane } from './search/ResultsPane.js';
import { SearchForm } from './search/SearchForm.js';
import { SearchNotes } from './search/SearchNotes.js';
import { TimeRangePicker } from './search/TimeRangePicker.js';
import { withFilter } from './search/query-terms.js';
import { liveChange } from './search/url-state.js';
import { useFieldNames } from './search/useFieldNames.js';
import { useKeyboard } from './search/useKeyboard.js';
import { useResults } from './search/useResults.js';
import { useSearchState } from './search/useSearchState.js';
import { useSelection } from './search/useSelection.js';
import { mayEdit } from './session/roles.js';
import { SuspendedBanner } from './ingestion/SuspendedBanner.js';
import { LiveToggle } from './tail/LiveToggle.js';
import { NewLinesButton, SamplingNotice } from './tail/TailNotices.js';
import { useLiveLines } from './tail/useLiveLines.js';
import { PatternsPane } from './patterns/PatternsPane.js';
import { ViewEditor } from './views-alerts/ViewEditor.js';
import { ViewsSidebar } from './views-alerts/ViewsSidebar.js';
import { useAlertLink } from './views-alerts/useAlertLink.js';
import { useViews } from './views-alerts/useViews.js';
import { openingView, searchToSave } from './views-alerts/view-search.js';

/** The search page (at `/`, its state in the query string): the search bar, the views and filters, the timeline and the lines. */
export function Viewer({ session }: { session: Session }) {
  const { state, filters, queryText, setQueryText, update, search } = useSearchState();
  const selection = useSelection(filters);
  const results = useResults(filters, selection.shift);
  const { lines } = results.pages;
  const { queryError, searchError } = results.status;
  const config = useViews();
  const live = useLiveLines(state.live && !queryError, filters, results.live);
  const [context, setContext] = useState<LogLine | null>(null);
  const [editor, setEditor] = useState<View | 'new' | null>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const fields = useFieldNames(lines);
  // "Chart this": a number field in the fields sidebar opens chart.panel on it.
  const chart = useChartThis(filters, session);

  const openView = (view: View) => search(view.query, openingView(view));
  useAlertLink({ state, views: config.views, viewsLoaded: config.loaded, lines, searchSerial: results.status.serial, openView, openLine: selection.open });
  useKeyboard(searchBox, lines, selection.selected, selection.setSelected, selection.toggle);
  const addToQuery = (field: string, value: string, exclude = false) => search(withFilter(state.q, field, value, exclude));

  return (
    <>
      <div className="app">
        <header className="topbar search-toolbar" data-testid="search-toolbar">
          <SearchForm inputRef={searchBox} text={queryText} onText={setQueryText} onSearch={() => update({ q: queryText.trim() })} invalid={!!queryError} />
          <TimeRangePicker range={state.range} from={filters.from} to={filters.to} onChange={(change) => update(change)} />
          <LiveToggle on={state.live} status={live.status} onChange={(on) => update(liveChange(on, state.range))} />
          <ExportMenu filters={filters} disabled={!!(queryError || searchError)} email={session.features?.email !== false} />
          {mayEdit(session) && <AddToBoardButton search={() => searchGraph(filters)} />}
        </header>
        <SuspendedBanner />
        <QueryErrors query={state.q} queryError={queryError} searchError={searchError} />
        <SearchNotes query={state.q} fields={fields} failed={!!queryError} />
        <RestoreOffer session={session} filters={filters} onRestored={() => update({ q: state.q })} />
        <div className="body">
          <aside className="sidebar">
            <ViewsSidebar
              views={config.views}
              current={state.view}
              onOpen={openView}
              onEdit={(view) => setEditor(view)}
              onDelete={(view) => config.remove(view, () => state.view === view.viewid && update({ view: '' }))}
              onNew={() => setEditor('new')}
              editable={mayEdit(session)}
            />
            <FilterMenus facets={results.facets} selected={state} onChange={(kind, values) => update({ [kind]: values })} />
            <FieldsSidebar filters={filters} onFilter={addToQuery} onChartField={chart.open} />
          </aside>
          <ResultsPane
            state={state}
            filters={filters}
            update={update}
            results={results}
            selection={selection}
            fields={fields}
            follow={state.live && !live.paused}
            onAtBottomChange={live.setAtBottom}
            onFilter={addToQuery}
            onContext={setContext}
            notice={<SamplingNotice sampling={live.sampling} />}
            footer={<NewLinesButton pending={live.pending} onResume={live.resume} />}
            patterns={(shown) => <PatternsPane session={session} filters={filters} open={shown} onSearch={(query) => search(query, { tab: 'lines' })} />}
          />
        </div>
        {context && <ContextPanel line={context} onClose={() => setContext(null)} />}
        {chart.panel}
        {editor && mayEdit(session) && (
          <ViewEditor
            view={editor === 'new' ? null : editor}
            search={searchToSave(state, editor === 'new' ? null : editor)}
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
    </>
  );
}
