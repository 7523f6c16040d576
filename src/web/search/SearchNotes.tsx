import { useMemo, useState } from 'react';
import { queryHints } from './query-hints.js';
import { urlProblems } from './url-state.js';

interface Props {
  query: string;
  /** Field names seen in the results, which hints take as known. */
  fields: Set<string>;
  /** The query does not parse: hints about it would only distract. */
  failed: boolean;
}

/** Notes beside a search that did run: hints about its query, and what in the URL (as the page opened) could not be used. */
export function SearchNotes({ query, fields, failed }: Props) {
  const hints = useMemo(() => queryHints(query, fields), [query, fields]);
  const [problems, setProblems] = useState(() => urlProblems());
  const shown = failed ? [] : hints;
  return (
    <>
      {shown.length > 0 && (
        <ul className="query-hints" data-testid="query-hints">
          {shown.map((hint) => (
            <li key={hint} data-testid="query-hint">
              {hint}
            </li>
          ))}
        </ul>
      )}
      {problems.length > 0 && (
        <div className="url-problems" role="status" data-testid="url-problems">
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
          <button type="button" onClick={() => setProblems([])}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
