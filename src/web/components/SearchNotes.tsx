/** Notes beside a search that did run: hints about its query, and what in the URL could not be used. */
export function SearchNotes({ hints, problems, onDismissProblems }: { hints: string[]; problems: string[]; onDismissProblems: () => void }) {
  return (
    <>
      {hints.length > 0 && (
        <ul className="query-hints" data-testid="query-hints">
          {hints.map((hint) => (
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
          <button type="button" onClick={onDismissProblems}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
