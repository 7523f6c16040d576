import type { ViewWarning } from '../api-client/client.js';

/** Why a save was refused (the API's messages), or what a save accepted with warnings will not do. */
export function SaveNotes({ problems, warnings }: { problems: string[]; warnings: ViewWarning[] | null }) {
  return (
    <>
      {problems.length > 0 && (
        <ul className="error" role="alert" data-testid="view-errors">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {warnings && (
        <div className="notice" role="status" data-testid="view-warnings">
          <p>Saved, but:</p>
          <ul>
            {warnings.map((warning) => (
              <li key={`${warning.channel}-${warning.code}`} data-testid="view-warning" data-code={warning.code}>
                Alert {warning.channel + 1}: {warning.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
