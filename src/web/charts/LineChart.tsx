import { useRef } from 'react';
import type { ChartData } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { type Frame, TimeAxis, ValueAxis } from './Axes.js';
import { ChartTooltip } from './ChartTooltip.js';
import { bucketAt, dragRange, formatValue, linePath, niceTop, seriesColour } from './chart-scale.js';
import { useBucketPointer } from './useBucketPointer.js';
import { useWidth } from './useWidth.js';

const FRAME: Frame = { left: 56, height: 180, bottom: 18 };
const TOP = 8;
const RIGHT = 16;

interface Props {
  data: ChartData;
  /** What the values are, for the chart's label ("lines", "p95 of duration"). */
  label: string;
  /** Drag across the plot to zoom to that range. */
  onZoom?: (from: number, to: number) => void;
}

/** Series over time as lines, with time and value axes and a legend; hover for a bucket's values, drag to zoom. */
export function LineChart({ data, label, onZoom }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const width = useWidth(box, 600);
  const times = useTimeFormats();

  const starts = data.series[0]?.points.map(([ts]) => ts) ?? [];
  const count = starts.length;
  const plot = Math.max(1, width - FRAME.left - RIGHT);
  const chartHeight = FRAME.height - FRAME.bottom - TOP;
  const values = data.series.flatMap((series) => series.points.map(([, value]) => value ?? 0));
  const top = niceTop(Math.max(0, ...values));
  const slot = plot / Math.max(1, count);
  const xOf = (ts: number) => FRAME.left + ((ts + data.interval / 2 - data.from) / Math.max(1, data.to - data.from)) * plot;
  const yOf = (value: number) => TOP + chartHeight - (value / top) * chartHeight;
  const indexAt = (clientX: number) => bucketAt(clientX - svg.current!.getBoundingClientRect().left - FRAME.left, plot, count);
  const { hover, drag, handlers } = useBucketPointer(count, indexAt, (first, last) => {
    const range = dragRange(starts, first, last, data.interval);
    if (range && onZoom) onZoom(range.from, range.to);
  });

  return (
    <div className="line-chart" ref={box}>
      <svg
        ref={svg}
        width={width}
        height={FRAME.height}
        role="img"
        aria-label={`${label} over time`}
        data-testid="line-chart"
        {...handlers}
      >
        <ValueAxis values={[0, top / 2, top]} plot={plot} yOf={yOf} frame={FRAME} format={formatValue} />
        {hover !== null && starts[hover] !== undefined && <line className="chart-cursor" x1={xOf(starts[hover])} x2={xOf(starts[hover])} y1={TOP} y2={FRAME.height - FRAME.bottom} />}
        {data.series.map((series, index) => (
          <path key={series.name} d={linePath(series.points, xOf, yOf)} fill="none" stroke={seriesColour(index, series.other)} strokeWidth={1.8} data-testid="chart-series" data-series={series.name} />
        ))}
        <TimeAxis from={data.from} to={data.to} plot={plot} shown={count > 0} times={times} frame={FRAME} />
        {drag && drag.start !== drag.end && (
          <rect className="histogram-selection" data-testid="chart-selection" x={FRAME.left + Math.min(drag.start, drag.end) * slot} y={0} width={(Math.abs(drag.end - drag.start) + 1) * slot} height={FRAME.height - FRAME.bottom} />
        )}
      </svg>
      {hover !== null && !drag && starts[hover] !== undefined && (
        <ChartTooltip data={data} index={hover} left={Math.min(width - 240, Math.max(0, xOf(starts[hover]) + 12))} top={TOP} times={times} />
      )}
      <ul className="chart-legend" aria-label="Series">
        {data.series.map((series, index) => (
          <li key={series.name} data-testid="legend-item" data-series={series.name}>
            <span className="swatch" style={{ background: seriesColour(index, series.other) }} />
            {series.name}
          </li>
        ))}
        {data.series.length === 0 && <li className="muted">No series: no lines match in this range.</li>}
      </ul>
    </div>
  );
}
