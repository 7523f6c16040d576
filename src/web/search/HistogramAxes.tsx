import { type Frame, TimeAxis as ChartTimeAxis, ValueAxis } from '../charts/Axes.js';
import type { TimeFormats } from '../shared/time-formats.js';
import { BOTTOM, HEIGHT, LEFT } from './histogram-scale.js';

const FRAME: Frame = { left: LEFT, height: HEIGHT, bottom: BOTTOM };

/** Gridlines at nothing, half the top and the top, labelled with their counts. */
export function CountAxis({ top, plot, yOf }: { top: number; plot: number; yOf: (count: number) => number }) {
  return <ValueAxis values={[0, top / 2, top]} plot={plot} yOf={yOf} frame={FRAME} />;
}

/** The timeline's time axis (charts/Axes.tsx), in the timeline's frame. */
export function TimeAxis(props: { from: number; to: number; plot: number; shown: boolean; times: TimeFormats }) {
  return <ChartTimeAxis {...props} frame={FRAME} />;
}
