import { useState } from 'react';
import { type Board, api } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';
import { Link } from '../navigation/Link.js';
import { boardInput } from './graph-form.js';

/** A board in the list: its link and graph count, and for editors rename and delete. */
export function BoardRow({ board, editable, onChanged, onError }: { board: Board; editable: boolean; onChanged: () => void; onError: (message: string) => void }) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const failed = (failure: unknown) => onError(errorText(failure));
  return (
    <li data-testid="board-row" data-board={board.boardId}>
      {renaming === null ? (
        <Link to={`/boards/${encodeURIComponent(board.boardId)}`} data-testid="board-link">
          {board.name}
        </Link>
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (!renaming.trim()) return onError('A board needs a name.');
            api.saveBoard(board.boardId, { ...boardInput(board), name: renaming.trim() }).then(() => {
              setRenaming(null);
              onChanged();
            }, failed);
          }}
        >
          <input value={renaming} onChange={(event) => setRenaming(event.target.value)} aria-label={`New name for ${board.name}`} data-testid="rename-board-name" autoFocus />
          <button type="submit" className="primary">
            Rename
          </button>
          <button type="button" onClick={() => setRenaming(null)}>
            Cancel
          </button>
        </form>
      )}
      <span className="muted">
        {board.graphs.length} {board.graphs.length === 1 ? 'graph' : 'graphs'}
      </span>
      {editable && renaming === null && (
        <>
          <button type="button" className="icon" onClick={() => setRenaming(board.name)} aria-label={`Rename ${board.name}`} data-testid="rename-board">
            ✎
          </button>
          <button
            type="button"
            className="icon"
            onClick={() => {
              if (window.confirm(`Delete the board “${board.name}” and its graphs?`)) api.deleteBoard(board.boardId).then(onChanged, failed);
            }}
            aria-label={`Delete ${board.name}`}
            data-testid="delete-board"
          >
            ×
          </button>
        </>
      )}
    </li>
  );
}
