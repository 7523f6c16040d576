import { useLayoutEffect, useRef, useState } from 'react';
import type { HistogramBucket } from '../api.js';
import { type TimeFormats, useTimeFormats } from '../time-zone.js';

/** Bar segments from the bottom up: the levels that need attention sit lowest, where the eye finds them. */
const LEVELS: Array<{ name: string; levels: string[]; colour: string }> = [
  { name: 'fatal', levels: ['FATAL', 'CRITICAL', 'EMERGENCY', 'ALERT'], colour: 'var(--level-fatal)' },
  { name: 'error', levels: ['ERROR', 'SEVERE'], colour: 'var(--level-error)' },
  { name: 'warn', levels: ['WARN', 'WARNING'], colour: 'var(--level-warn)' },
  { name: 'info', levels: ['INFO', 'NOTICE'], colour: 'var(--level-info)' },
  { name: 'debug', levels: ['DEBUG', 'TRACE'], colour: 'var(--level-debug)' },
];
const KNOWN = new Set(LEVELS.flatMap((group) => group.levels));

interface Props {
  buckets: HistogramBucket[];
  interval: number;
  /** Drag over bars to zoom into that range. */
  onZoom: (from: number, to: number) => void;
  /** Click a bar to zoom to it. */
  onJump: (bucket: HistogramBucket) => void;
}

const HEIGHT = 96;
const LEFT = 44;
const BOTTOM = 18;
const TOP = 6;
const RIGHT = 24;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [SECOND, 5 * SECOND, 10 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];


/** How long one bar is, in words: "1 minute", "30 seconds". */
export function describeInterval(ms: number): string {
  const units: Array<[number, string]> = [
    [DAY, 'day'],
    [HOUR, 'hour'],
    [MINUTE, 'minute'],
    [SECOND, 'second'],
  ];
  // The server's interval can be off a whole unit by a fraction of a millisecond.
  const rounded = ms >= SECOND ? Math.round(ms / SECOND) * SECOND : Math.round(ms);
  for (const [size, unit] of units) {
    if (rounded >= size && rounded % size === 0) return `${rounded / size} ${unit}${rounded / size === 1 ? '' : 's'}`;
  }
  return `${rounded} ms`;
}

/** Time ticks on round times of the chosen zone, about one per 110 pixels. */
function timeTicks(from: number, to: number, width: number, { clock, clockSeconds, day, offsetMinutes, hourMinute }: TimeFormats): Array<{ at: number; label: string }> {
  const wanted = Math.max(2, Math.floor(width / 110));
  const step = STEPS.find((candidate) => (to - from) / candidate <= wanted) ?? STEPS[STEPS.length - 1];
  const offset = -offsetMinutes(from) * MINUTE;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const ticks = [];
  for (let at = first; at <= to; at += step) {
    const [hours, minutes] = hourMinute(at);
    const midnight = hours === 0 && minutes === 0;
    const label = step >= DAY || (midnight && step >= HOUR) ? day.format(new Date(at)) : step < MINUTE ? clockSeconds.format(new Date(at)) : clock.format(new Date(at));
    ticks.push({ at, label });
  }
  return ticks;
}

/** A round top for the count axis: 1, 2 or 5 times a power of ten. */
function niceMax(max: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, max)));
  const top = [1, 2, 5, 10].map((n) => n * power).find((n) => n >= max) ?? max;
  // Counts are whole: an odd top would put a fraction at the middle gridline.
  return top % 2 ? top + 1 : top;
}

function segments(bucket: HistogramBucket) {
  const parts = LEVELS.map((group) => ({ name: group.name, colour: group.colour, count: group.levels.reduce((sum, level) => sum + (bucket.levels[level] ?? 0), 0) }));
  const other = Object.entries(bucket.levels)
    .filter(([level]) => !KNOWN.has(level))
    .reduce((sum, [, n]) => sum + n, 0);
  return [...parts, { name: 'other', colour: 'var(--level-other)', count: other }];
}

/** Matches over the time range, stacked by level, with time and count axes; hover for a bar's numbers, click or drag to zoom. */
export function Histogram({ buckets, interval, onZoom, onJump }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const times = useTimeFormats();
  const { clockSeconds, day } = times;
  const svg = useRef<SVGSVGElement>(null);
  const [width, setWidth] = useState(800);
  const [drag, setDrag] = useState<{ start: number; end: number } | null>(null);
  const [hover, setHover] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = box.current!;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth || 800));
    observer.observe(element);
    setWidth(element.clientWidth || 800);
    return () => observer.disconnect();
  }, []);

  const plot = Math.max(1, width - LEFT - RIGHT);
  const barWidth = plot / Math.max(1, buckets.length);
  const top = niceMax(Math.max(1, ...buckets.map((bucket) => bucket.count)));
  const chartHeight = HEIGHT - BOTTOM - TOP;
  const yOf = (count: number) => TOP + chartHeight - (count / top) * chartHeight;
  const from = buckets[0]?.ts ?? 0;
  const to = buckets.length ? buckets[buckets.length - 1].ts + interval : 0;
  const xOf = (ts: number) => LEFT + ((ts - from) / Math.max(1, to - from)) * plot;
  const indexAt = (clientX: number) => {
    const rect = svg.current!.getBoundingClientRect();
    return Math.min(buckets.length - 1, Math.max(0, Math.floor((clientX - rect.left - LEFT) / barWidth)));
  };
  const finish = () => {
    if (!drag) return;
    const [a, b] = [Math.min(drag.start, drag.end), Math.max(drag.start, drag.end)];
    setDrag(null);
    if (!buckets[a]) return;
    if (a === b) onJump(buckets[a]);
    else onZoom(buckets[a].ts, buckets[b].ts + interval - 1);
  };
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
        onMouseDown={(event) => buckets.length && setDrag({ start: indexAt(event.clientX), end: indexAt(event.clientX) })}
        onMouseMove={(event) => {
          if (!buckets.length) return;
          const index = indexAt(event.clientX);
          setHover(index);
          if (drag) setDrag({ ...drag, end: index });
        }}
        onMouseUp={finish}
        onMouseLeave={() => {
          setHover(null);
          finish();
        }}
      >
        {buckets.length > 0 && (
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
        )}
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
        <g className="axis time-axis" data-testid="time-axis">
          {(buckets.length ? timeTicks(from, to, plot, times) : []).map((tick) => (
            <g key={tick.at}>
              <line x1={xOf(tick.at)} x2={xOf(tick.at)} y1={HEIGHT - BOTTOM} y2={HEIGHT - BOTTOM + 4} className="tick" />
              <text x={xOf(tick.at)} y={HEIGHT - 3} textAnchor="middle" data-testid="time-tick">
                {tick.label}
              </text>
            </g>
          ))}
        </g>
        {drag && <rect className="histogram-selection" x={LEFT + Math.min(drag.start, drag.end) * barWidth} y={0} width={(Math.abs(drag.end - drag.start) + 1) * barWidth} height={HEIGHT - BOTTOM} />}
      </svg>
      {hovered && !drag && (
        <div className="histogram-tooltip" role="tooltip" data-testid="histogram-tooltip" style={{ left: Math.min(width - 260, Math.max(0, LEFT + (hover! + 0.5) * barWidth - 130)), top: HEIGHT + 6 }}>
          <div>
            {day.format(new Date(hovered.ts))}, {clockSeconds.format(new Date(hovered.ts))} – {clockSeconds.format(new Date(hovered.ts + interval))}
          </div>
          <strong>
            {hovered.count.toLocaleString()} {hovered.count === 1 ? 'line' : 'lines'}
          </strong>
          {segments(hovered)
            .filter((part) => part.count)
            .map((part) => (
              <div key={part.name} className={`level-${part.name}`}>
                {part.name}: {part.count.toLocaleString()}
              </div>
            ))}
        </div>
      )}
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
