import { useCallback, useEffect, useState } from 'react';
import { type Board, type Session, api } from '../api-client/client.js';
import { mayEdit } from '../session/roles.js';
import { errorText } from '../shared/error-text.js';
import { Link } from '../navigation/Link.js';
import { navigate } from '../navigation/useRoute.js';
import { BoardRow } from './BoardRow.js';
import { byCategory } from './graph-form.js';
import { createBoard } from './save-to-board.js';
import './boards.css';

/** Every board of the organisation at /boards, by category; members and above create, rename and delete them. */
export function BoardsPage({ session }: { session: Session }) {
  const [boards, setBoards] = useState<Board[] | null>(null);
  const [categories, setCategories] = useState<string[]>([]);
  const [error, setError] = useState('');
  const editable = mayEdit(session);
  const reload = useCallback(() => {
    api.boards().then(setBoards, (failure) => setError(errorText(failure)));
    api.boardCategories().then((found) => setCategories(found.map((category) => category.name)), () => setCategories([]));
  }, []);
  useEffect(reload, [reload]);
  return (
    <main className="boards-page" data-testid="boards-page">
      <header className="board-toolbar">
        <h2>Boards</h2>
        {editable && <NewBoardForm categories={categories} onError={setError} />}
      </header>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {boards && boards.length === 0 && <p className="muted">No boards yet.{editable ? ' Create one, or add a search to a new board from the search page.' : ''}</p>}
      {boards &&
        byCategory(boards).map(({ category, boards: inCategory }) => (
          <section key={category ?? ''} className="board-category" aria-label={category ?? 'Uncategorized'} data-testid="board-category">
            <h3>{category ?? 'Uncategorized'}</h3>
            <ul className="board-list">
              {inCategory.map((board) => (
                <BoardRow key={board.boardId} board={board} editable={editable} onChanged={reload} onError={setError} />
              ))}
            </ul>
          </section>
        ))}
      {!boards && !error && <p className="muted">Loading…</p>}
      <datalist id="board-categories">
        {categories.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <p className="muted">
        A board is a set of graphs over one time range. <Link to="/">From the search</Link>, “Add to board” saves the current search as a graph.
      </p>
    </main>
  );
}

function NewBoardForm({ categories, onError }: { categories: string[]; onError: (message: string) => void }) {
  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  return (
    <form
      className="inline-form"
      aria-label="New board"
      onSubmit={(event) => {
        event.preventDefault();
        if (!name.trim()) return onError('Give the board a name.');
        createBoard(name.trim(), category.trim() || null, [], categories).then((board) => navigate(`/boards/${encodeURIComponent(board.boardId)}`), (failure) => onError(errorText(failure)));
      }}
    >
      <input value={name} onChange={(event) => setName(event.target.value)} placeholder="New board’s name" aria-label="New board’s name" data-testid="new-board-name" />
      <input list="board-categories" value={category} onChange={(event) => setCategory(event.target.value)} placeholder="Category (optional)" aria-label="Category" data-testid="new-board-category" />
      <button type="submit" className="primary" data-testid="create-board">
        Create board
      </button>
    </form>
  );
}
