import { useRef, useState } from 'react';
import type { LogLine, Session, View } from './api-client/client.js';
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
import { filterTerm } from './search/query-terms.js';
import { liveChange } from './search/url-state.js';
import { useFieldNames } from './search/useFieldNames.js';
import { useKeyboard } from './search/useKeyboard.js';
import { useResults } from './search/useResults.js';
import { useSearchState } from './search/useSearchState.js';
import { useSelection } from './search/useSelection.js';
import { type SidePage, SessionControls } from './session/SessionControls.js';
import { mayEdit } from './session/roles.js';
import { PeoplePage } from './people/PeoplePage.js';
import { AuditPage } from './audit/AuditPage.js';
import { ExclusionsPage } from './ingestion/ExclusionsPage.js';
import { SuspendedBanner } from './ingestion/SuspendedBanner.js';
import { ZoneContext, useZoneChoice } from './shared/time-zone.js';
import { LiveToggle } from './tail/LiveToggle.js';
import { NewLinesButton, SamplingNotice } from './tail/TailNotices.js';
import { useLiveLines } from './tail/useLiveLines.js';
import { UsagePage } from './usage/UsagePage.js';
import { ParsersPage } from './parsers/ParsersPage.js';
import { ViewEditor } from './views-alerts/ViewEditor.js';
import { ViewsSidebar } from './views-alerts/ViewsSidebar.js';
import { useAlertLink } from './views-alerts/useAlertLink.js';
import { useViews } from './views-alerts/useViews.js';
import { openingView, searchToSave } from './views-alerts/view-search.js';

/** The signed-in viewer: the search bar, the views and filters, the timeline and the lines. */
export function Viewer({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const { state, filters, queryText, setQueryText, update, search } = useSearchState();
  const selection = useSelection(filters);
  const results = useResults(filters, selection.shift);
  const { lines } = results.pages;
  const { queryError, searchError } = results.status;
  const config = useViews();
  const live = useLiveLines(state.live && !queryError, filters, results.live);
  const { zone, setZone } = useZoneChoice();
  const [context, setContext] = useState<LogLine | null>(null);
  const [page, setPage] = useState<SidePage | null>(null);
  const [editor, setEditor] = useState<View | 'new' | null>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const fields = useFieldNames(lines);

  const openView = (view: View) => search(view.query, openingView(view));
  useAlertLink({ state, views: config.views, viewsLoaded: config.loaded, lines, searchSerial: results.status.serial, openView, openLine: selection.open });
  useKeyboard(searchBox, lines, selection.selected, selection.setSelected, selection.toggle);
  const addToQuery = (field: string, value: string, exclude = false) => {
    const term = filterTerm(field, value, exclude);
    search(state.q ? `${state.q} ${term}` : term);
  };

  return (
    <ZoneContext.Provider value={zone}>
      <div className="app">
        <header className="topbar">
          <span className="brand">Logstead</span>
          <SearchForm inputRef={searchBox} text={queryText} onText={setQueryText} onSearch={() => update({ q: queryText.trim() })} invalid={!!queryError} />
          <TimeRangePicker range={state.range} from={filters.from} to={filters.to} onChange={(change) => update(change)} />
          <LiveToggle on={state.live} status={live.status} onChange={(on) => update(liveChange(on, state.range))} />
          <ExportMenu filters={filters} disabled={!!(queryError || searchError)} email={session.features?.email !== false} />
          <SessionControls session={session} zone={zone} onZone={setZone} onSignOut={onSignOut} onPage={setPage} />
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
            <FieldsSidebar filters={filters} onFilter={addToQuery} />
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
          />
        </div>
        {context && <ContextPanel line={context} onClose={() => setContext(null)} />}
        {page === 'usage' && <UsagePage onClose={() => setPage(null)} />}
        {page === 'people' && <PeoplePage session={session} onClose={() => setPage(null)} />}
        {page === 'audit' && <AuditPage onClose={() => setPage(null)} />}
        {page === 'exclusions' && <ExclusionsPage onClose={() => setPage(null)} />}
        {page === 'parsers' && <ParsersPage session={session} onClose={() => setPage(null)} />}
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
    </ZoneContext.Provider>
  );
}
