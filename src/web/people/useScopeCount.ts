import { useEffect, useState } from 'react';
import { ApiError, api } from '../api-client/client.js';
import { DAY_MS } from '../usage/usage-format.js';
import { type ScopeProblem, countProblem, countQuery } from './scope.js';

export type ScopeCount = { state: 'counting' } | { state: 'counted'; matched: number; total: number } | { state: 'failed'; problem: ScopeProblem };

/** Typing pauses this long before the lines are counted again. */
const PAUSE_MS = 350;

const linesOf = (answer: { buckets: Array<{ count: number }> }) => answer.buckets.reduce((sum, bucket) => sum + bucket.count, 0);

/**
 * How many of the last day's lines a scope lets through (its searches, within its exact lists of
 * apps and hosts), out of all of them, as the signed-in admin sees them (the histogram, one
 * bucket). Counted again when the scope is edited.
 */
export function useScopeCount(text: string, lists: { apps: string[]; hosts: string[] } = { apps: [], hosts: [] }): ScopeCount {
  const [count, setCount] = useState<ScopeCount>({ state: 'counting' });
  // The lists as one value that stays equal while they do, so a render does not count again.
  const listsKey = JSON.stringify(lists);
  useEffect(() => {
    let current = true;
    setCount({ state: 'counting' });
    const timer = setTimeout(async () => {
      const to = Date.now();
      const from = to - DAY_MS;
      const { query, starts } = countQuery(text);
      const limits = JSON.parse(listsKey) as { apps: string[]; hosts: string[] };
      const limited = query !== '' || limits.apps.length > 0 || limits.hosts.length > 0;
      try {
        const [matched, total] = await Promise.all([api.lineCount(query, from, to, limits), limited ? api.lineCount('', from, to) : null]);
        if (current) setCount({ state: 'counted', matched: linesOf(matched), total: linesOf(total ?? matched) });
      } catch (error) {
        if (current) setCount({ state: 'failed', problem: error instanceof ApiError ? countProblem(error.body, starts) : { message: String(error) } });
      }
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, listsKey]);
  return count;
}
