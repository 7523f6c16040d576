import type { TimeFormats } from '../shared/time-formats.js';
import { BOTTOM, HEIGHT, LEFT, timeTicks } from './histogram-scale.js';

/** Gridlines at nothing, half the top and the top, labelled with their counts. */
export function CountAxis({ top, plot, yOf }: { top: number; plot: number; yOf: (count: number) => number }) {
  return (
    <g className="axis count-axis" data-testid="count-axis">
      {[0, top / 2, top].map((value) => (
        <g key={value}>
          <line x1={LEFT} x2={LEFT + plot} y1={yOf(value)} y2={yOf(value)} className="grid-line" />
          <text x={LEFT - 4} y={yOf(value) + 3} textAnchor="end">
            {value.toLocaleString()}
          </text>
        </g>
      ))}
    </g>
  );
}

/** Ticks on round times of the zone shown; the group is there, empty, while there are no bars. */
export function TimeAxis({ from, to, plot, shown, times }: { from: number; to: number; plot: number; shown: boolean; times: TimeFormats }) {
  const xOf = (ts: number) => LEFT + ((ts - from) / Math.max(1, to - from)) * plot;
  return (
    <g className="axis time-axis" data-testid="time-axis">
      {(shown ? timeTicks(from, to, plot, times) : []).map((tick) => (
        <g key={tick.at}>
          <line x1={xOf(tick.at)} x2={xOf(tick.at)} y1={HEIGHT - BOTTOM} y2={HEIGHT - BOTTOM + 4} className="tick" />
          <text x={xOf(tick.at)} y={HEIGHT - 3} textAnchor="middle" data-testid="time-tick">
            {tick.label}
          </text>
        </g>
      ))}
    </g>
  );
}
