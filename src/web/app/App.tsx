import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, type Facets, type HistogramBucket, type LogLine, type Page, type Preset, type View, api, filterParams, setCsrfToken } from './api.js';
import { ContextPanel } from './components/ContextPanel.js';
import { FilterMenus } from './components/FilterMenus.js';
import { Histogram } from './components/Histogram.js';
import { quote } from './components/LineDetails.js';
import { LineList } from './components/LineList.js';
import { ViewEditor } from './components/ViewEditor.js';
import { ViewsSidebar } from './components/ViewsSidebar.js';
import { useLiveTail } from './live-tail.js';
import { RANGES, type ViewerState, readState, toFilters, writeState } from './url-state.js';

interface Session {
  account: string;
  name: string;
  csrfToken: string;
  features?: { email: boolean };
}

const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

const PAGE_SIZE = 500;
/** Lines kept in memory; beyond this the oldest are dropped as live lines arrive. */
const MAX_LINES = 100_000;
const toLocalInput = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  return (
    <main className="signin">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            onSignedIn(await api<Session>('POST', '/api/session', { serviceKey: key }));
          } catch (e) {
            setError(e instanceof ApiError && e.status === 401 ? 'That is not a service key of an active organisation.' : String((e as Error).message));
          }
        }}
      >
        <h1>Logstead</h1>
        <label>
          Service key
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} autoFocus autoComplete="current-password" data-testid="service-key" />
        </label>
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" className="primary">
          Sign in
        </button>
        <p className="muted">The key selects your organisation. Find it in data/initial-credentials.json, or create one with npx logstead key create.</p>
      </form>
    </main>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    api<Session>('GET', '/api/session').then(
      (found) => {
        setCsrfToken(found.csrfToken);
        setSession(found);
      },
      () => setSession(null),
    );
    const signedOut = () => setSession(null);
    window.addEventListener('logstead:signed-out', signedOut);
    return () => window.removeEventListener('logstead:signed-out', signedOut);
  }, []);
  if (session === undefined) return <main className="loading">Loading…</main>;
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(found) => {
          setCsrfToken(found.csrfToken);
          setSession(found);
        }}
      />
    );
  }
  return <Viewer session={session} onSignOut={() => setSession(null)} />;
}

function Viewer({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const [state, setState] = useState<ViewerState>(readState);
  const [now, setNow] = useState(Date.now);
  // Recomputed when a search starts (update() moves `now` whenever a searched field changes).
  const filters = useMemo(() => toFilters(state, now), [now]);
  const [queryText, setQueryText] = useState(state.q);
  const [queryError, setQueryError] = useState<{ message: string; position?: number } | null>(null);
  const [searchError, setSearchError] = useState('');
  const [lines, setLines] = useState<LogLine[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [prepended, setPrepended] = useState({ count: 0, serial: 0 });
  const [searchSerial, setSearchSerial] = useState(0);
  const [loading, setLoading] = useState(false);
  const [histogram, setHistogram] = useState<{ buckets: HistogramBucket[]; interval: number }>({ buckets: [], interval: 1 });
  const [facets, setFacets] = useState<Facets | null>(null);
  const [views, setViews] = useState<View[]>([]);
  const [presets, setPresets] = useState<Preset[]>([]);
  const [categories, setCategories] = useState<string[]>([]);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState(-1);
  const [context, setContext] = useState<LogLine | null>(null);
  const [editor, setEditor] = useState<View | 'new' | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const [pending, setPending] = useState<LogLine[]>([]);
  const [selecting, setSelecting] = useState(false);
  const [theme, setTheme] = useState(() => localStorage.getItem('logstead-theme') ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  const searchBox = useRef<HTMLInputElement>(null);
  const loadingOlder = useRef(false);
  /** Live lines that arrive while a search is loading, added once its results are in. */
  const arrivedDuringSearch = useRef<LogLine[] | null>(null);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('logstead-theme', theme);
  }, [theme]);

  const update = useCallback((change: Partial<ViewerState>) => {
    const searches = Object.keys(change).some((key) => key !== 'live' && key !== 'view');
    setState((current) => {
      // A search changed by hand is no longer the view it started from.
      const next = { ...current, ...(searches && !('view' in change) ? { view: '' } : {}), ...change };
      writeState(next);
      return next;
    });
    // Only a change to what is searched starts a new search; switching live tail or the view label does not.
    if (searches) setNow(Date.now());
  }, []);

  useEffect(() => {
    const onPop = () => {
      const next = readState();
      setState(next);
      setQueryText(next.q);
      setNow(Date.now());
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const loadConfig = useCallback(async () => {
    const [viewList, presetList, categoryList] = await Promise.all([
      api<View[]>('GET', '/v1/config/view'),
      api<Preset[]>('GET', '/v1/config/presetalert'),
      api<Array<{ name: string }>>('GET', '/v1/config/categories/views'),
    ]);
    setViews(viewList);
    setPresets(presetList);
    setCategories(categoryList.map((category) => category.name));
  }, []);
  const [configLoaded, setConfigLoaded] = useState(false);
  useEffect(() => {
    void loadConfig()
      .then(() => undefined)
      .finally(() => setConfigLoaded(true));
  }, [loadConfig]);

  // A link from an alert names a view (and a line): open the view's search when the link has none,
  // then open the line once it is among that search's results; not among those of a search that
  // ran before the views had loaded, since a new search closes every open line.
  const linkedLine = useRef(new URLSearchParams(window.location.search).get('line'));
  const linkStage = useRef<'awaiting views' | 'awaiting view results' | 'ready'>(state.view ? 'awaiting views' : 'ready');
  const openLinkedLine = (shown: LogLine[]) => {
    const index = linkedLine.current ? shown.findIndex((line) => line._id === linkedLine.current) : -1;
    if (index < 0) return;
    setSelected(index);
    setExpanded(new Set([shown[index]._id]));
    linkedLine.current = null;
  };
  useEffect(() => {
    if (linkStage.current !== 'awaiting views' || !configLoaded) return;
    const view = views.find((candidate) => candidate.viewid === state.view);
    const searched = state.q || state.hosts.length || state.apps.length || state.levels.length || state.tags.length;
    if (view && !searched) {
      setQueryText(view.query);
      update({ view: view.viewid, q: view.query, hosts: view.hosts, apps: view.apps, levels: view.levels, tags: view.tags });
      linkStage.current = 'awaiting view results';
    } else {
      linkStage.current = 'ready';
      openLinkedLine(lines);
    }
  }, [views, configLoaded]);
  useEffect(() => {
    if (linkStage.current === 'awaiting view results') linkStage.current = 'ready';
    if (linkStage.current === 'ready') openLinkedLine(lines);
  }, [lines]);

  // A new search: the newest page of lines, the timeline and the filter values.
  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setExpanded(new Set());
    setSelected(-1);
    setPending([]);
    arrivedDuringSearch.current = [];
    const params = filterParams(filters);
    Promise.all([
      api<Page>('GET', `/v2/export?${filterParams(filters, { size: String(PAGE_SIZE), prefer: 'tail' })}`),
      api<{ buckets: HistogramBucket[]; interval: number }>('GET', `/v1/histogram?${params}&buckets=60`),
      api<Facets>('GET', `/v1/viewer/facets?${filterParams({ ...filters, hosts: [], apps: [], levels: [], tags: [] })}`),
    ]).then(
      ([page, timeline, values]) => {
        if (cancelled) return;
        setQueryError(null);
        setSearchError('');
        const seen = new Set(page.lines.map((line) => line._id));
        setLines([...page.lines, ...(arrivedDuringSearch.current ?? []).filter((line) => !seen.has(line._id))]);
        arrivedDuringSearch.current = null;
        setOlderCursor(page.pagination_id);
        setPrepended({ count: 0, serial: 0 });
        setSearchSerial((serial) => serial + 1);
        setHistogram(timeline);
        setFacets(values);
        setLoading(false);
      },
      (error) => {
        if (cancelled) return;
        arrivedDuringSearch.current = null;
        setLoading(false);
        // Old results would pass for the answer to this search: clear them.
        setLines([]);
        setHistogram({ buckets: [], interval: 1 });
        setOlderCursor(null);
        if (error instanceof ApiError && error.body.position !== undefined) {
          setQueryError({ message: error.body.expected ? `Expected ${error.body.expected}` : error.body.error, position: error.body.position });
          setSearchError('');
        } else {
          setQueryError(null);
          setSearchError(error instanceof ApiError ? error.body.error : String(error));
        }
      },
    );
    return () => {
      cancelled = true;
    };
  }, [filters]);

  const loadOlder = useCallback(async () => {
    if (!olderCursor || loadingOlder.current) return;
    loadingOlder.current = true;
    try {
      const page = await api<Page>('GET', `/v2/export?${filterParams(filters, { size: String(PAGE_SIZE), prefer: 'tail', pagination_id: olderCursor })}`);
      setLines((current) => [...page.lines, ...current].slice(0, MAX_LINES));
      setPrepended((current) => ({ count: page.lines.length, serial: current.serial + 1 }));
      setSelected((index) => (index >= 0 ? index + page.lines.length : index));
      setOlderCursor(page.pagination_id);
    } finally {
      loadingOlder.current = false;
    }
  }, [olderCursor, filters]);

  // Live tail: new lines append at the bottom, unless the reader has scrolled up or is selecting.
  const paused = !atBottom || selecting;
  const { status, sampled } = useLiveTail(state.live && !queryError, filters, (incoming) => {
    if (arrivedDuringSearch.current) arrivedDuringSearch.current.push(...incoming);
    else if (paused) setPending((current) => [...current, ...incoming].slice(-MAX_LINES));
    else setLines((current) => [...current, ...incoming].slice(-MAX_LINES));
  });
  const resume = () => {
    setLines((current) => [...current, ...pending].slice(-MAX_LINES));
    setPending([]);
    setAtBottom(true);
  };
  useEffect(() => {
    if (!paused && pending.length) resume();
  }, [paused]);

  useEffect(() => {
    const onSelection = () => setSelecting(!!document.getSelection()?.toString());
    document.addEventListener('selectionchange', onSelection);
    return () => document.removeEventListener('selectionchange', onSelection);
  }, []);

  const toggle = (line: LogLine) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(line._id)) next.delete(line._id);
      else next.add(line._id);
      return next;
    });

  // Keyboard: "/" focuses the search, j and k move through lines, Enter opens one.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLSelectElement;
      if (event.key === '/' && !typing) {
        event.preventDefault();
        searchBox.current?.focus();
      } else if (!typing && (event.key === 'j' || event.key === 'k')) {
        setSelected((index) => Math.max(0, Math.min(lines.length - 1, index + (event.key === 'j' ? 1 : -1))));
      } else if (!typing && !(event.target instanceof HTMLButtonElement) && event.key === 'Enter' && selected >= 0 && lines[selected]) {
        toggle(lines[selected]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [lines, selected]);

  const addToQuery = (field: string, value: string) => {
    const term = `${field}:${quote(value)}`;
    const q = state.q ? `${state.q} ${term}` : term;
    setQueryText(q);
    update({ q });
  };

  const openView = (view: View) => {
    setQueryText(view.query);
    update({ view: view.viewid, q: view.query, hosts: view.hosts, apps: view.apps, levels: view.levels, tags: view.tags });
  };

  const exportUrl = `/v1/export?${filterParams(filters, { size: '10000' })}`;

  return (
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
        <select aria-label="Time range" value={state.range} onChange={(e) => update(e.target.value === 'custom' ? { range: 'custom', from: filters.from, to: filters.to } : { range: e.target.value })} data-testid="range">
          {RANGES.map((range) => (
            <option key={range.key} value={range.key}>
              {range.label}
            </option>
          ))}
          <option value="custom">Custom range</option>
        </select>
        {state.range === 'custom' && (
          <span className="custom-range">
            <input type="datetime-local" step="1" aria-label="From" value={toLocalInput(filters.from)} onChange={(e) => Number.isFinite(Date.parse(e.target.value)) && update({ range: 'custom', from: Date.parse(e.target.value), to: filters.to })} />
            <input type="datetime-local" step="1" aria-label="To" value={toLocalInput(filters.to)} onChange={(e) => Number.isFinite(Date.parse(e.target.value)) && update({ range: 'custom', from: filters.from, to: Date.parse(e.target.value) })} />
          </span>
        )}
        <label className="live-toggle">
          <input type="checkbox" checked={state.live} onChange={(e) => update({ live: e.target.checked, ...(e.target.checked && state.range === 'custom' ? { range: '1h' } : {}) })} data-testid="live" />
          Live tail
          {state.live && (
            <span className={`status ${status}`} data-testid="live-status" data-status={status}>
              {status === 'live' ? 'on' : `${status}…`}
            </span>
          )}
        </label>
        <details className="menu">
          <summary>Export</summary>
          <div className="menu-body">
            {queryError || searchError ? (
              <span className="muted">Fix the search to export it.</span>
            ) : (
              <a href={exportUrl} download="logstead-export.jsonl">
                Download JSON Lines
              </a>
            )}
            {session.features?.email === false ? (
              <span className="muted">E-mail export needs an SMTP server (LOGSTEAD_SMTP_URL).</span>
            ) : (
            <button
              type="button"
              onClick={async () => {
                const email = window.prompt('Send the export to which e-mail address?');
                if (!email) return;
                try {
                  await api('GET', `${exportUrl}&email=${encodeURIComponent(email)}`);
                  window.alert(`The export will be e-mailed to ${email}.`);
                } catch (error) {
                  window.alert((error as Error).message);
                }
              }}
            >
              Send by e-mail…
            </button>
            )}
          </div>
        </details>
        <button type="button" onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')} aria-label="Switch theme">
          {theme === 'dark' ? '☀' : '☾'}
        </button>
        <span className="muted" title={session.account}>
          {session.name}
        </span>
        <button
          type="button"
          onClick={async () => {
            await api('DELETE', '/api/session');
            onSignOut();
          }}
        >
          Sign out
        </button>
      </header>
      {searchError && (
        <div className="query-error" role="alert" data-testid="search-error">
          <span>{searchError}</span>
        </div>
      )}
      {queryError && (
        <div id="query-error" className="query-error" role="alert" data-testid="query-error">
          {queryError.position !== undefined && (
            <code>
              {state.q}
              {'\n'}
              {' '.repeat(queryError.position)}^
            </code>
          )}
          <span>{queryError.message}</span>
        </div>
      )}
      <div className="body">
        <aside className="sidebar">
          <ViewsSidebar
            views={views}
            current={state.view}
            onOpen={openView}
            onEdit={(view) => setEditor(view)}
            onDelete={async (view) => {
              if (!window.confirm(`Delete the view “${view.name}” and its alerts?`)) return;
              await api('DELETE', `/v1/config/view/${view.viewid}`);
              if (state.view === view.viewid) update({ view: '' });
              await loadConfig();
            }}
            onNew={() => setEditor('new')}
          />
          <FilterMenus facets={facets} selected={state} onChange={(kind, values) => update({ [kind]: values })} />
        </aside>
        <main className="results">
          <Histogram
            buckets={histogram.buckets}
            interval={histogram.interval}
            onZoom={(from, to) => update({ range: 'custom', from, to, live: false })}
            onJump={(bucket) => update({ range: 'custom', from: bucket.ts, to: bucket.ts + histogram.interval - 1, live: false })}
          />
          {sampled > 0 && <p className="notice">Live tail is sampling: more than 1,000 lines a second match, {sampled.toLocaleString()} were skipped.</p>}
          {loading && lines.length === 0 && <p className="muted">Searching…</p>}
          {!loading && lines.length === 0 && !queryError && <p className="muted empty">No lines match in this range.</p>}
          <LineList
            lines={lines}
            selected={selected}
            expanded={expanded}
            onSelect={setSelected}
            onToggle={toggle}
            onFilter={addToQuery}
            onContext={setContext}
            onReachTop={() => void loadOlder()}
            onAtBottomChange={setAtBottom}
            follow={state.live && !paused}
            prepended={prepended}
            searchSerial={searchSerial}
          />
          {pending.length > 0 && (
            <button type="button" className="new-lines" onClick={resume} data-testid="new-lines">
              {plural(pending.length, 'new line')} — resume
            </button>
          )}
        </main>
      </div>
      {context && <ContextPanel line={context} onClose={() => setContext(null)} />}
      {editor && (
        <ViewEditor
          view={editor === 'new' ? null : editor}
          search={{ query: state.q, hosts: state.hosts, apps: state.apps, levels: state.levels, tags: state.tags }}
          presets={presets}
          categories={categories}
          onClose={() => setEditor(null)}
          onSaved={async (view) => {
            setEditor(null);
            await loadConfig();
            update({ view: view.viewid });
          }}
        />
      )}
    </div>
  );
}
