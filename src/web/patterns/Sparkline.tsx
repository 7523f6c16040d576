import { sparklinePoints } from './pattern-actions.js';

const WIDTH = 120;
const HEIGHT = 22;

/** A pattern's lines over the range, bucket by bucket: its shape, not its scale (each line is scaled to its own highest bucket). */
export function Sparkline({ volume, interval }: { volume: number[]; interval: number }) {
  const highest = Math.max(0, ...volume);
  const label = `Lines per ${Math.round(interval / 1000)} s bucket, at most ${highest.toLocaleString()}`;
  return (
    <svg className="sparkline" width={WIDTH} height={HEIGHT} viewBox={`-1 -1 ${WIDTH + 2} ${HEIGHT + 2}`} role="img" aria-label={label} data-testid="pattern-sparkline">
      <title>{label}</title>
      <polyline points={sparklinePoints(volume, WIDTH, HEIGHT)} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
