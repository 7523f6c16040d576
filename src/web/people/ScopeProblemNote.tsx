import { type ScopeProblem, scopeLines } from './scope.js';

/** Why a scope does not parse: the search it names with a caret under the position, and the message. */
export function ScopeProblemNote({ text, problem }: { text: string; problem: ScopeProblem }) {
  const search = problem.line === undefined ? undefined : scopeLines(text)[problem.line];
  return (
    <div className="query-error" role="alert" data-testid="scope-error">
      {search !== undefined && problem.position !== undefined && (
        <code>
          {search}
          {'\n'}
          {' '.repeat(problem.position)}^
        </code>
      )}
      <span>{problem.message}</span>
    </div>
  );
}
