import { useEffect, useState } from 'react';
import { ApiError, type Board, type BoardInput, type Graph, type GraphSpec, type Session, api } from '../api-client/client.js';
import { TimeRangePicker } from '../search/TimeRangePicker.js';
import { mayEdit } from '../session/roles.js';
import { errorText } from '../shared/error-text.js';
import { Link } from '../navigation/Link.js';
import { GraphCard } from './GraphCard.js';
import { GraphEditor } from './GraphEditor.js';
import { boardInput, searchGraph } from './graph-form.js';
import { useBoardRange } from './useBoardRange.js';
import './boards.css';

/** A new graph's starting point: every line, counted. */
const NEW_GRAPH: GraphSpec = { ...searchGraph({ q: '', apps: [], hosts: [], levels: [], tags: [] }), title: '' };

/** A board at /boards/{boardId}: every graph over one shared range, which the picker or a drag on any graph sets. */
export function BoardPage({ session, boardId }: { session: Session; boardId: string }) {
  const [board, setBoard] = useState<Board | null | undefined>(undefined);
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<Graph | 'new' | null>(null);
  const { range, absolute, change, refresh } = useBoardRange();
  const editable = mayEdit(session);

  useEffect(() => {
    api.board(boardId).then(setBoard, (failure) => (failure instanceof ApiError && failure.status === 404 ? setBoard(null) : setError(errorText(failure))));
  }, [boardId]);

  if (board === null) {
    return (
      <main className="board-page" data-testid="board-missing">
        <p>
          There is no such board. <Link to="/boards">See every board</Link>.
        </p>
      </main>
    );
  }
  const saveGraphs = async (graphs: BoardInput['graphs']) => setBoard(await api.saveBoard(boardId, boardInput(board!, graphs)));
  return (
    <main className="board-page" data-testid="board-page">
      <header className="board-toolbar">
        <nav className="crumbs" aria-label="Breadcrumbs">
          <Link to="/boards">Boards</Link>
          {board?.category && <span className="muted"> / {board.category}</span>} /{' '}
        </nav>
        <h2 data-testid="board-name">{board?.name ?? '…'}</h2>
        <TimeRangePicker range={range.range} from={absolute.from} to={absolute.to} onChange={(next) => change({ range: next.range, from: next.from ?? 0, to: next.to ?? 0 })} />
        <button type="button" onClick={refresh} title="Ask for the graphs again, up to now" data-testid="refresh-board">
          Refresh
        </button>
        {editable && board && (
          <button type="button" className="primary" onClick={() => setEditing('new')} data-testid="add-graph">
            Add a graph
          </button>
        )}
      </header>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {board && board.graphs.length === 0 && <p className="muted board-empty">This board has no graphs yet.{editable ? ' Add one, or add a search to it from the search page.' : ''}</p>}
      <div className="graph-grid">
        {board?.graphs.map((graph) => (
          <GraphCard
            key={graph.graphId}
            boardId={boardId}
            graph={graph}
            from={absolute.from}
            to={absolute.to}
            onZoom={(from, to) => change({ range: 'custom', from, to })}
            onEdit={editable ? () => setEditing(graph) : undefined}
            onDelete={
              editable
                ? () => {
                    if (window.confirm(`Delete the graph “${graph.title}”?`)) saveGraphs(board.graphs.filter((kept) => kept.graphId !== graph.graphId)).catch((failure) => setError(errorText(failure)));
                  }
                : undefined
            }
          />
        ))}
      </div>
      {editing && board && (
        <GraphEditor
          initial={editing === 'new' ? NEW_GRAPH : editing}
          isNew={editing === 'new'}
          from={absolute.from}
          to={absolute.to}
          onClose={() => setEditing(null)}
          onSave={async (spec) => {
            const graphs = editing === 'new' ? [...board.graphs, spec] : board.graphs.map((graph) => (graph.graphId === editing.graphId ? { ...spec, graphId: graph.graphId } : graph));
            await saveGraphs(graphs);
            setEditing(null);
          }}
        />
      )}
    </main>
  );
}
