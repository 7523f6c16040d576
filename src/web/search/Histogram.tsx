import { useRef } from 'react';
import { useBucketPointer } from '../charts/useBucketPointer.js';
import { useWidth } from '../charts/useWidth.js';
import type { HistogramBucket } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { CountAxis, TimeAxis } from './HistogramAxes.js';
import { HistogramTooltip } from './HistogramTooltip.js';
import { BOTTOM, HEIGHT, LEFT, RIGHT, TOP, describeInterval, niceMax, segments } from './histogram-scale.js';

interface Props {
  buckets: HistogramBucket[];
  interval: number;
  /** Drag over bars to zoom into that range. */
  onZoom: (from: number, to: number) => void;
  /** Click a bar to zoom to it. */
  onJump: (bucket: HistogramBucket) => void;
}

/** Matches over the time range, stacked by level, with time and count axes; hover for a bar's numbers, click or drag to zoom. */
export function Histogram({ buckets, interval, onZoom, onJump }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const times = useTimeFormats();
  const svg = useRef<SVGSVGElement>(null);
  const width = useWidth(box, 800);

  const plot = Math.max(1, width - LEFT - RIGHT);
  const barWidth = plot / Math.max(1, buckets.length);
  const top = niceMax(Math.max(1, ...buckets.map((bucket) => bucket.count)));
  const chartHeight = HEIGHT - BOTTOM - TOP;
  const yOf = (count: number) => TOP + chartHeight - (count / top) * chartHeight;
  const from = buckets[0]?.ts ?? 0;
  const to = buckets.length ? buckets[buckets.length - 1].ts + interval : 0;
  const indexAt = (clientX: number) => {
    const rect = svg.current!.getBoundingClientRect();
    return Math.min(buckets.length - 1, Math.max(0, Math.floor((clientX - rect.left - LEFT) / barWidth)));
  };
  const { hover, drag, handlers } = useBucketPointer(buckets.length, indexAt, (first, last) => {
    if (!buckets[first]) return;
    if (first === last) onJump(buckets[first]);
    else onZoom(buckets[first].ts, buckets[last].ts + interval - 1);
  });
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const hovered = hover !== null ? buckets[hover] : undefined;

  return (
    <div className="histogram" ref={box} aria-label={`Timeline: ${total} matching lines`}>
      <svg
        ref={svg}
        width={width}
        height={HEIGHT}
        role="img"
        aria-label="Matches over time, by level"
        data-testid="histogram"
        {...handlers}
      >
        {buckets.length > 0 && <CountAxis top={top} plot={plot} yOf={yOf} />}
        {buckets.map((bucket, index) => {
          let y = yOf(0);
          return (
            <g key={bucket.ts} data-count={bucket.count} data-testid="bar" className={hover === index ? 'bar hovered' : 'bar'}>
              {segments(bucket).map((part) => {
                if (!part.count) return null;
                const h = (part.count / top) * chartHeight;
                y -= h;
                return <rect key={part.name} x={LEFT + index * barWidth + barWidth * 0.1} y={y} width={Math.max(1, barWidth * 0.8)} height={h} fill={part.colour} data-level={part.name} />;
              })}
            </g>
          );
        })}
        <TimeAxis from={from} to={to} plot={plot} shown={buckets.length > 0} times={times} />
        {drag && <rect className="histogram-selection" x={LEFT + Math.min(drag.start, drag.end) * barWidth} y={0} width={(Math.abs(drag.end - drag.start) + 1) * barWidth} height={HEIGHT - BOTTOM} />}
      </svg>
      {hovered && !drag && <HistogramTooltip bucket={hovered} interval={interval} left={Math.min(width - 260, Math.max(0, LEFT + (hover! + 0.5) * barWidth - 130))} times={times} />}
      <div className="histogram-axis">
        <span data-testid="histogram-interval">{buckets.length ? `Each bar: ${describeInterval(interval)}` : ''}</span>
        <span data-testid="histogram-total">
          {total.toLocaleString()} {total === 1 ? 'line' : 'lines'}
        </span>
        <span className="muted">{times.zone === 'UTC' ? 'Times in UTC · ' : ''}Click a bar or drag to zoom</span>
      </div>
    </div>
  );
}
