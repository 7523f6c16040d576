import type { Graph } from '../api-client/client.js';
import { api } from '../api-client/client.js';
import { LineChart } from '../charts/LineChart.js';
import { bucketsFor, emptyChartText, measureLabel } from '../charts/chart-scale.js';
import { useChartData } from '../charts/useChartData.js';
import { graphAbout } from './graph-form.js';

interface Props {
  boardId: string;
  graph: Graph;
  from: number;
  to: number;
  onZoom: (from: number, to: number) => void;
  /** Absent for a reader who may not change the board. */
  onEdit?: () => void;
  onDelete?: () => void;
}

/** One graph of a board over the board's range, with its search in words. */
export function GraphCard({ boardId, graph, from, to, onZoom, onEdit, onDelete }: Props) {
  const buckets = bucketsFor(from, to);
  const { data, error, loading } = useChartData(() => api.graphData(boardId, graph.graphId, from, to, buckets), `${JSON.stringify(graph)}|${from}|${to}`);
  const label = measureLabel(graph.measure);
  const about = graphAbout(graph);
  const empty = data ? emptyChartText(data, graph.measure) : '';
  return (
    <section className="graph-card" aria-label={graph.title} data-testid="graph" data-graph={graph.graphId} data-loading={loading}>
      <header className="graph-header">
        <h3>{graph.title}</h3>
        <span className="muted graph-about" title={about} data-testid="graph-about">
          {about}
        </span>
        {onEdit && (
          <button type="button" className="icon" onClick={onEdit} aria-label={`Edit ${graph.title}`} data-testid="edit-graph">
            ✎
          </button>
        )}
        {onDelete && (
          <button type="button" className="icon" onClick={onDelete} aria-label={`Delete ${graph.title}`} data-testid="delete-graph">
            ×
          </button>
        )}
      </header>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {empty && (
        <p className="muted chart-empty" data-testid="chart-empty">
          {empty}
        </p>
      )}
      {data && <LineChart data={data} label={label} onZoom={onZoom} />}
      {!data && !error && <p className="muted">Loading…</p>}
    </section>
  );
}
