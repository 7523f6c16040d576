import type { HistogramBucket } from '../api-client/client.js';
import type { TimeFormats } from '../shared/time-formats.js';
import { HEIGHT, segments } from './histogram-scale.js';

/** A hovered bar's time span, count and counts by level. */
export function HistogramTooltip({ bucket, interval, left, times }: { bucket: HistogramBucket; interval: number; left: number; times: TimeFormats }) {
  const { clockSeconds, day } = times;
  return (
    <div className="histogram-tooltip" role="tooltip" data-testid="histogram-tooltip" style={{ left, top: HEIGHT + 6 }}>
      <div>
        {day.format(new Date(bucket.ts))}, {clockSeconds.format(new Date(bucket.ts))} – {clockSeconds.format(new Date(bucket.ts + interval))}
      </div>
      <strong>
        {bucket.count.toLocaleString()} {bucket.count === 1 ? 'line' : 'lines'}
      </strong>
      {segments(bucket)
        .filter((part) => part.count)
        .map((part) => (
          <div key={part.name} className={`level-${part.name}`}>
            {part.name}: {part.count.toLocaleString()}
          </div>
        ))}
    </div>
  );
}
