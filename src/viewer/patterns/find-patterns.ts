import type { LineFilter, LogStore } from '../../store/log-store.js';
import type { PatternGroup } from '../../store/line-patterns.js';
import type { LogPattern, PatternsResponse } from '../../wire/types.js';
import { drain } from './drain.js';
import { templateFitPattern, templateId, templateNeedle, templateQuery } from './template-text.js';

/**
 * Log patterns of a search (GET /v1/viewer/patterns; docs/patterns.md): the engine masks and
 * groups the lines (store/line-patterns.ts), Drain clusters the distinct masked texts (drain.ts),
 * and each cluster's count is the sum of its groups' exact counts, so every matching line is
 * counted once, in one pattern.
 */

/**
 * Masked texts clustered one by one; rarer ones are merged first by length and first token
 * (store/line-patterns.ts). Drain compares a text with every cluster of its leaf, so its time grows
 * with the square of these where texts share no template: 6,000 such texts took 0.8 s.
 */
const MAX_GROUPS = 3000;
const MAX_COARSE = 500;

export interface PatternOptions {
  limit: number;
  buckets: number;
}

/** A template and what its groups add up to. */
interface Cluster {
  template: string;
  lines: number;
  firstMs: number;
  firstId: string;
  lastMs: number;
  volume: number[];
}

/** Whether position a is before b: by time, then by id (ids are 64-bit decimal text). */
const earlier = (a: { firstMs: number; firstId: string }, b: { firstMs: number; firstId: string }) =>
  a.firstMs < b.firstMs || (a.firstMs === b.firstMs && BigInt(a.firstId) < BigInt(b.firstId));

/**
 * Clusters groups (in the store's order: most lines, then text) and adds up each template's
 * groups. Two clusters that widened to the same template are one pattern.
 */
export function clusterGroups(groups: PatternGroup[], bucketCount: number): Cluster[] {
  const byTemplate = new Map<string, Cluster>();
  for (const cluster of drain(groups.map((group) => group.text))) {
    const template = cluster.tokens.join(' ');
    let sum = byTemplate.get(template);
    if (!sum) byTemplate.set(template, (sum = { template, lines: 0, firstMs: Infinity, firstId: '0', lastMs: -Infinity, volume: new Array(bucketCount).fill(0) }));
    for (const index of cluster.members) {
      const group = groups[index];
      sum.lines += group.lines;
      sum.lastMs = Math.max(sum.lastMs, group.lastMs);
      if (earlier(group, sum)) {
        sum.firstMs = group.firstMs;
        sum.firstId = group.firstId;
      }
      for (const [bucket, lines] of group.volume) if (bucket < bucketCount) sum.volume[bucket] += lines;
    }
  }
  return [...byTemplate.values()].sort((a, b) => b.lines - a.lines || (a.template < b.template ? -1 : a.template > b.template ? 1 : 0));
}

/**
 * Whether some line of the window fits each template. When every template has a needle, only
 * the window's lines holding one are masked: most lines of a window hold none of the top
 * templates' constant text.
 */
function seenBefore(store: LogStore, window: LineFilter, templates: string[]): Promise<boolean[]> {
  const needles = templates.map(templateNeedle);
  const allHave = needles.every((needle): needle is string => needle !== undefined);
  // A text fits a template only with as many tokens: a placeholder stands for no space.
  const fits = templates.map((template) => ({ pattern: templateFitPattern(template), tokens: template.split(' ').length }));
  return store.anyMaskedMatch(window, fits, allHave ? [...new Set(needles)] : undefined);
}

/** The patterns of a filter's lines, the `limit` most frequent first. */
export async function findPatterns(store: LogStore, filter: LineFilter, options: PatternOptions): Promise<PatternsResponse> {
  const spanMs = filter.toMs - filter.fromMs + 1;
  const bucketMs = Math.max(1, Math.ceil(spanMs / options.buckets));
  const bucketCount = Math.ceil(spanMs / bucketMs);
  const groups = await store.patternGroups(filter, { bucketMs, maxGroups: MAX_GROUPS, maxCoarse: MAX_COARSE });
  const clusters = clusterGroups(groups, bucketCount);
  const total = clusters.reduce((sum, cluster) => sum + cluster.lines, 0);
  const shown = clusters.slice(0, options.limit);
  const before = { from: Math.max(0, filter.fromMs - spanMs), to: filter.fromMs - 1 };
  const [examples, seen] = await Promise.all([
    store.linesAt(filter, shown.map((cluster) => ({ ts: cluster.firstMs, id: cluster.firstId }))),
    before.to < before.from ? shown.map(() => false) : seenBefore(store, { ...filter, fromMs: before.from, toMs: before.to }, shown.map((cluster) => cluster.template)),
  ]);
  const patterns: LogPattern[] = shown.map((cluster, at) => ({
    id: templateId(cluster.template),
    template: cluster.template,
    lines: cluster.lines,
    share: total === 0 ? 0 : cluster.lines / total,
    first: cluster.firstMs,
    last: cluster.lastMs,
    example: examples.get(`${cluster.firstMs}:${cluster.firstId}`) ?? '',
    query: templateQuery(cluster.template),
    new: !seen[at],
    volume: cluster.volume,
  }));
  const othersLines = clusters.slice(options.limit).reduce((sum, cluster) => sum + cluster.lines, 0);
  return {
    lines: total,
    from: filter.fromMs,
    to: filter.toMs,
    interval: bucketMs,
    before,
    patterns,
    others: { patterns: Math.max(0, clusters.length - options.limit), lines: othersLines },
  };
}
