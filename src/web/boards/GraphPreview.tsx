import { type GraphSpec, api } from '../api-client/client.js';
import { LineChart } from '../charts/LineChart.js';
import { bucketsFor, measureLabel } from '../charts/chart-scale.js';
import { useChartData } from '../charts/useChartData.js';

/** A graph that is not saved, drawn over a range from POST /v1/viewer/chart: the editor's preview, and "chart this". */
export function GraphPreview({ spec, from, to, onZoom }: { spec: GraphSpec | null; from: number; to: number; onZoom?: (from: number, to: number) => void }) {
  const key = `${JSON.stringify(spec)}|${from}|${to}`;
  const { data, error, loading } = useChartData(spec ? () => api.chart({ ...spec, from, to, buckets: bucketsFor(from, to) }) : null, key);
  if (!spec) return null;
  return (
    <div className="graph-preview" data-testid="graph-preview" data-loading={loading}>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {data && !error && <LineChart data={data} label={measureLabel(spec.measure)} onZoom={onZoom} />}
    </div>
  );
}
