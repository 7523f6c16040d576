import { useEffect, useState } from 'react';
import { type Board, type GraphSpec, api } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';
import { Link } from '../navigation/Link.js';
import { MeasureFields } from './GraphFields.js';
import { type GraphDraft, draftOf, specOf } from './graph-form.js';
import { addGraph, createBoard } from './save-to-board.js';
import './boards.css';

const NEW = '';

/** Saves a search (or a "chart this" graph) as a graph on a board the reader chooses, or on a new one. */
export function AddToBoard({ graph, onClose }: { graph: GraphSpec; onClose: () => void }) {
  const [boards, setBoards] = useState<Board[] | null>(null);
  const [categories, setCategories] = useState<string[]>([]);
  const [target, setTarget] = useState(NEW);
  const [newName, setNewName] = useState('');
  const [draft, setDraft] = useState<GraphDraft>(() => draftOf(graph));
  const [saved, setSaved] = useState<Board | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api.boards().then((found) => {
      setBoards(found);
      if (found.length) setTarget(found[0].boardId);
    }, (failure) => setError(errorText(failure)));
    api.boardCategories().then((found) => setCategories(found.map((category) => category.name)), () => setCategories([]));
  }, []);
  const checked = specOf(draft);
  const save = async (spec: GraphSpec) => (target === NEW ? createBoard(newName.trim(), null, [spec], categories) : addGraph(target, spec));
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Add to a board" onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <form
        className="modal-body add-to-board"
        data-testid="add-to-board"
        onSubmit={(event) => {
          event.preventDefault();
          if (!('spec' in checked)) return setError(checked.problem);
          if (target === NEW && !newName.trim()) return setError('Name the new board.');
          save(checked.spec).then(setSaved, (failure) => setError(errorText(failure)));
        }}
      >
        <header className="modal-header">
          <h2>Add to a board</h2>
        </header>
        {saved ? (
          <p role="status" data-testid="added-to-board">
            Added “{draft.title}” to <Link to={`/boards/${encodeURIComponent(saved.boardId)}`}>{saved.name}</Link>.
          </p>
        ) : (
          <>
            <label>
              Board
              <select value={target} onChange={(event) => setTarget(event.target.value)} disabled={!boards} data-testid="target-board">
                {boards?.map((board) => (
                  <option key={board.boardId} value={board.boardId}>
                    {board.category ? `${board.category} / ` : ''}
                    {board.name}
                  </option>
                ))}
                <option value={NEW}>A new board…</option>
              </select>
            </label>
            {target === NEW && (
              <label>
                New board’s name
                <input value={newName} onChange={(event) => setNewName(event.target.value)} data-testid="target-board-name" />
              </label>
            )}
            <label>
              Graph title
              <input value={draft.title} onChange={(event) => setDraft({ ...draft, title: event.target.value })} data-testid="graph-title" />
            </label>
            <p className="muted">
              Search: <code>{draft.query || 'every line'}</code>
              {[draft.apps && `apps ${draft.apps}`, draft.hosts && `hosts ${draft.hosts}`, draft.levels && `levels ${draft.levels}`, draft.tags && `tags ${draft.tags}`].filter(Boolean).map((part) => `; ${part}`)}
            </p>
            <MeasureFields draft={draft} onChange={(change) => setDraft({ ...draft, ...change })} />
          </>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <footer className="modal-footer form-actions">
          <button type="button" onClick={onClose}>
            {saved ? 'Close' : 'Cancel'}
          </button>
          {!saved && (
            <button type="submit" className="primary" data-testid="save-to-board">
              Add the graph
            </button>
          )}
        </footer>
      </form>
    </div>
  );
}

/** The search toolbar's "Add to board": saves the search being shown as a graph. */
export function AddToBoardButton({ search }: { search: () => GraphSpec }) {
  const [graph, setGraph] = useState<GraphSpec | null>(null);
  return (
    <>
      <button type="button" onClick={() => setGraph(search())} title="Save this search as a graph on a board" data-testid="add-to-board-open">
        Add to board
      </button>
      {graph && <AddToBoard graph={graph} onClose={() => setGraph(null)} />}
    </>
  );
}
