import { useLayoutEffect, useRef, useState } from 'react';
import type { TimeFormats } from '../shared/time-formats.js';
import { labelCentre, timeTicks } from './time-scale.js';

/** Where a chart's plot sits in its SVG: the left margin holds the value labels, the bottom one the times. */
export interface Frame {
  left: number;
  height: number;
  bottom: number;
}

/** Gridlines at the given values, labelled with them. */
export function ValueAxis({ values, plot, yOf, frame, format = (value) => value.toLocaleString() }: { values: number[]; plot: number; yOf: (value: number) => number; frame: Frame; format?: (value: number) => string }) {
  return (
    <g className="axis count-axis" data-testid="count-axis">
      {values.map((value) => (
        <g key={value}>
          <line x1={frame.left} x2={frame.left + plot} y1={yOf(value)} y2={yOf(value)} className="grid-line" />
          <text x={frame.left - 4} y={yOf(value) + 3} textAnchor="end">
            {format(value)}
          </text>
        </g>
      ))}
    </g>
  );
}

/**
 * Ticks on round times of the zone shown; the group is there, empty, while there is nothing to show.
 * Each label is measured once drawn, and one that would cross the chart's edge is moved inwards.
 */
export function TimeAxis({ from, to, plot, shown, times, frame }: { from: number; to: number; plot: number; shown: boolean; times: TimeFormats; frame: Frame }) {
  const xOf = (ts: number) => frame.left + ((ts - from) / Math.max(1, to - from)) * plot;
  const base = frame.height - frame.bottom;
  const ticks = shown ? timeTicks(from, to, plot, times) : [];
  const group = useRef<SVGGElement>(null);
  const [measured, setMeasured] = useState<{ widths: number[]; limit: number }>({ widths: [], limit: 0 });
  useLayoutEffect(() => {
    const texts = [...(group.current?.querySelectorAll('text') ?? [])];
    const widths = texts.map((text) => text.getComputedTextLength());
    const limit = group.current?.ownerSVGElement?.width.baseVal.value ?? 0;
    if (limit !== measured.limit || widths.join() !== measured.widths.join()) setMeasured({ widths, limit });
  });
  const labelX = (index: number, centre: number) => (measured.limit && measured.widths[index] !== undefined ? labelCentre(centre, measured.widths[index], measured.limit) : centre);
  return (
    <g className="axis time-axis" data-testid="time-axis" ref={group}>
      {ticks.map((tick, index) => (
        <g key={tick.at}>
          <line x1={xOf(tick.at)} x2={xOf(tick.at)} y1={base} y2={base + 4} className="tick" />
          <text x={labelX(index, xOf(tick.at))} y={frame.height - 3} textAnchor="middle" data-testid="time-tick">
            {tick.label}
          </text>
        </g>
      ))}
    </g>
  );
}
