import { useRef, useState } from 'react';
import type { HistogramBucket } from '../api.js';
import { timeFormat } from './LineList.js';

const LEVEL_COLOURS: Array<[string, string]> = [
  ['FATAL', 'var(--level-fatal)'],
  ['CRITICAL', 'var(--level-fatal)'],
  ['EMERGENCY', 'var(--level-fatal)'],
  ['ERROR', 'var(--level-error)'],
  ['WARN', 'var(--level-warn)'],
  ['INFO', 'var(--level-info)'],
  ['DEBUG', 'var(--level-debug)'],
  ['TRACE', 'var(--level-debug)'],
];
const OTHER = 'var(--level-other)';

interface Props {
  buckets: HistogramBucket[];
  interval: number;
  /** Drag over bars to zoom into that range. */
  onZoom: (from: number, to: number) => void;
  /** Click a bar to jump to its time. */
  onJump: (bucket: HistogramBucket) => void;
}

const HEIGHT = 80;

/** Matches over the time range, stacked by level; drag to zoom, click a bar to jump there. */
export function Histogram({ buckets, interval, onZoom, onJump }: Props) {
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ start: number; end: number } | null>(null);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.count));
  const width = 100 / Math.max(1, buckets.length);
  const indexAt = (clientX: number) => {
    const box = svg.current!.getBoundingClientRect();
    return Math.min(buckets.length - 1, Math.max(0, Math.floor(((clientX - box.left) / box.width) * buckets.length)));
  };
  const finish = () => {
    if (!drag) return;
    const [a, b] = [Math.min(drag.start, drag.end), Math.max(drag.start, drag.end)];
    setDrag(null);
    if (a === b) onJump(buckets[a]);
    else onZoom(buckets[a].ts, buckets[b].ts + interval - 1);
  };
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);

  return (
    <div className="histogram" aria-label={`Timeline: ${total} matching lines`}>
      <svg
        ref={svg}
        viewBox={`0 0 100 ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label="Matches over time, by level"
        data-testid="histogram"
        onMouseDown={(event) => setDrag({ start: indexAt(event.clientX), end: indexAt(event.clientX) })}
        onMouseMove={(event) => drag && setDrag({ ...drag, end: indexAt(event.clientX) })}
        onMouseUp={finish}
        onMouseLeave={finish}
      >
        {buckets.map((bucket, index) => {
          let y = HEIGHT;
          const known = new Set(LEVEL_COLOURS.map(([level]) => level));
          const parts = [...LEVEL_COLOURS.map(([level, colour]) => [bucket.levels[level] ?? 0, colour] as const), [Object.entries(bucket.levels).filter(([level]) => !known.has(level)).reduce((sum, [, n]) => sum + n, 0), OTHER] as const];
          return (
            <g key={bucket.ts} data-count={bucket.count}>
              <title>{`${timeFormat.format(new Date(bucket.ts))}: ${bucket.count} ${bucket.count === 1 ? 'line' : 'lines'}`}</title>
              <rect x={index * width} y={0} width={width} height={HEIGHT} fill="transparent" />
              {parts.map(([count, colour], part) => {
                if (!count) return null;
                const h = (count / max) * (HEIGHT - 2);
                y -= h;
                return <rect key={part} x={index * width + width * 0.1} y={y} width={width * 0.8} height={h} fill={colour} />;
              })}
            </g>
          );
        })}
        {drag && (
          <rect className="histogram-selection" x={Math.min(drag.start, drag.end) * width} y={0} width={(Math.abs(drag.end - drag.start) + 1) * width} height={HEIGHT} />
        )}
      </svg>
      <div className="histogram-axis">
        <span>{buckets[0] ? timeFormat.format(new Date(buckets[0].ts)) : ''}</span>
        <span>
          {total.toLocaleString()} {total === 1 ? 'line' : 'lines'}
        </span>
        <span>{buckets.length ? timeFormat.format(new Date(buckets[buckets.length - 1].ts + interval)) : ''}</span>
      </div>
    </div>
  );
}
