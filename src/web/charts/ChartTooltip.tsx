import type { ChartData } from '../api-client/client.js';
import type { TimeFormats } from '../shared/time-formats.js';
import { formatValue, seriesColour } from './chart-scale.js';

/** A hovered bucket's time span and each series' value there, largest first. */
export function ChartTooltip({ data, index, left, top, times }: { data: ChartData; index: number; left: number; top: number; times: TimeFormats }) {
  const start = data.series[0].points[index][0];
  const rows = data.series
    .map((series, order) => ({ name: series.name, colour: seriesColour(order, series.other), value: series.points[index]?.[1] ?? null }))
    .sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity));
  return (
    <div className="chart-tooltip" role="tooltip" data-testid="chart-tooltip" style={{ left, top }}>
      <div>
        {times.day.format(new Date(start))}, {times.clockSeconds.format(new Date(start))} – {times.clockSeconds.format(new Date(start + data.interval))}
      </div>
      {rows.map((row) => (
        <div key={row.name} className="chart-tooltip-row" data-testid="tooltip-row" data-series={row.name}>
          <span className="swatch" style={{ background: row.colour }} />
          <span className="chart-tooltip-name">{row.name}</span>
          <strong>{formatValue(row.value)}</strong>
        </div>
      ))}
    </div>
  );
}
