import { useState } from 'react';
import { ApiError, type Filters, type LogPattern, type Session, api } from '../api-client/client.js';
import { mayAdminister } from '../session/roles.js';
import { PatternRow } from './PatternRow.js';
import { exclusionForPattern, searchWithPattern } from './pattern-actions.js';
import { usePatterns } from './usePatterns.js';
import './patterns.css';

interface Props {
  session: Session;
  filters: Filters;
  /** Whether the tab is shown: patterns are asked for only then. */
  open: boolean;
  /** Runs a search (the pattern's, within the current one). */
  onSearch: (query: string) => void;
}

/**
 * The Patterns tab: the search's lines grouped into templates (GET /v1/viewer/patterns), most lines
 * first. "Search" narrows the search to a pattern; "Exclude" (admins, who may create exclusion
 * rules) keeps lines like it out of the store, after a confirmation.
 */
export function PatternsPane({ session, filters, open, onSearch }: Props) {
  const { patterns, stale, error, loading } = usePatterns(filters, open);
  const [excluding, setExcluding] = useState<LogPattern | null>(null);
  const [note, setNote] = useState<{ text: string; failed: boolean } | null>(null);
  const exclude = async (pattern: LogPattern) => {
    try {
      const rule = await api.createExclusion(exclusionForPattern(pattern, filters));
      setNote({ text: `Exclusion rule created: "${rule.title}". The Exclusions page lists it.`, failed: false });
    } catch (failure) {
      setNote({ text: failure instanceof ApiError ? failure.message : String(failure), failed: true });
    }
    setExcluding(null);
  };
  if (!open) return null;
  return (
    <section className={`patterns ${stale ? 'stale' : ''}`} data-testid="patterns-pane" data-loaded={patterns && !stale ? 'current' : 'pending'}>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {note && (
        <p className={note.failed ? 'error' : 'muted'} role={note.failed ? 'alert' : 'status'} data-testid="pattern-note">
          {note.text}
        </p>
      )}
      {excluding && (
        <div className="pattern-confirm" role="alertdialog" aria-label="Exclude this pattern" data-testid="pattern-confirm">
          <span>
            Keep new lines matching <code>{exclusionForPattern(excluding, filters).query}</code> out of the store? They still reach live tail and alerts.
          </span>
          <button type="button" className="primary" onClick={() => void exclude(excluding)}>
            Create exclusion rule
          </button>
          <button type="button" onClick={() => setExcluding(null)}>
            Cancel
          </button>
        </div>
      )}
      {loading && !patterns && <p className="muted">Finding patterns…</p>}
      {patterns && patterns.patterns.length === 0 && <p className="muted empty">No lines match in this range.</p>}
      {patterns && patterns.patterns.length > 0 && (
        <>
          <p className="muted pattern-summary" data-testid="pattern-summary">
            {patterns.patterns.length.toLocaleString()} patterns of {patterns.lines.toLocaleString()} lines
            {patterns.others.patterns > 0 && `, and ${patterns.others.patterns.toLocaleString()} more patterns of ${patterns.others.lines.toLocaleString()} lines`}
          </p>
          <table className="pattern-table">
            <thead>
              <tr>
                <th>Lines</th>
                <th>Share</th>
                <th>Pattern</th>
                <th>First / last</th>
                <th>Volume</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {patterns.patterns.map((pattern) => (
                <PatternRow
                  key={pattern.id}
                  pattern={pattern}
                  interval={patterns.interval}
                  onSearch={(chosen) => onSearch(searchWithPattern(filters.q, chosen))}
                  onExclude={mayAdminister(session) ? setExcluding : undefined}
                />
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
