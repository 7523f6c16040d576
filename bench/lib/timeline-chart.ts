/**
 * A dependency-free SVG chart of throughput (bars), p99 acknowledgement latency (red line) and
 * the server's resident memory (grey line) per second, so that stalls, saw-tooth merges and
 * memory growth show at a glance.
 */
export function timelineChart(points: Array<{ second: number; linesPerSecond: number; p99Ms: number; rssMiB: number }>, title: string): string {
  const width = 760;
  const height = 300;
  const left = 64;
  const right = 64;
  const top = 36;
  const bottom = 40;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const maxRate = Math.max(1, ...points.map((p) => p.linesPerSecond)) * 1.1;
  const maxLatency = Math.max(1, ...points.map((p) => p.p99Ms)) * 1.1;
  const x = (i: number) => left + (i / Math.max(1, points.length)) * plotW;
  const barW = Math.max(1, plotW / Math.max(1, points.length) - 1);
  const yRate = (v: number) => top + plotH - (v / maxRate) * plotH;
  const yLatency = (v: number) => top + plotH - (v / maxLatency) * plotH;
  const bars = points.map((p, i) => `<rect x="${x(i).toFixed(1)}" y="${yRate(p.linesPerSecond).toFixed(1)}" width="${barW.toFixed(1)}" height="${(top + plotH - yRate(p.linesPerSecond)).toFixed(1)}" fill="#7aa7e6"/>`).join('');
  const maxRss = Math.max(1, ...points.map((p) => p.rssMiB));
  const yRss = (v: number) => top + plotH - (v / (maxRss * 1.1)) * plotH;
  const rss = points.map((p, i) => `${(x(i) + barW / 2).toFixed(1)},${yRss(p.rssMiB).toFixed(1)}`).join(' ');
  const line = points.map((p, i) => `${(x(i) + barW / 2).toFixed(1)},${yLatency(p.p99Ms).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const y = top + plotH - f * plotH;
      return `<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" stroke="#e4e7ec"/>` +
        `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${Math.round((f * maxRate) / 1000)}k</text>` +
        `<text x="${left + plotW + 6}" y="${y + 4}">${Math.round(f * maxLatency)} ms</text>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11" fill="#344054">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${left}" y="20" font-size="13" font-weight="600">${title}</text>
${ticks}
${bars}
<polyline points="${line}" fill="none" stroke="#d92d20" stroke-width="2"/>
<polyline points="${rss}" fill="none" stroke="#667085" stroke-width="1.5" stroke-dasharray="4 3"/>
<text x="${left}" y="${height - 12}">lines/s (bars, left) · p99 ack latency (red, right) · server RSS (grey dashes, top = ${Math.round(maxRss * 1.1)} MiB) · x: ${points.length} s</text>
</svg>
`;
}
