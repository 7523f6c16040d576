/**
 * A seeded generator of realistic log lines, shared by the benchmarks. Shape (documented in
 * bench/ingest/README.md): 24 apps and 180 hosts with Zipf-skewed volume; levels 70% INFO,
 * 15% DEBUG, 10% WARN, 4% ERROR, 1% FATAL; 80% text lines from templates padded with words drawn
 * with Zipf frequencies from a 5,000-word vocabulary; 20% JSON lines carrying the same fields in meta.
 * Planted for search benchmarks: the word `timeout` in 5% of lines and the phrase
 * `connection reset` in 0.3%; rare needles are added by the caller.
 */

import { seededRandom } from '../../src/testing/seeded-random.js';

/** Picks index i of n with probability proportional to 1 / (i + 1)^s. */
function zipfPicker(n: number, s: number, random: () => number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) cumulative.push((total += 1 / Math.pow(i + 1, s)));
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid] < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qu', 'do', 'fe', 'gi', 'ha', 'jo'];
const LEVELS: Array<[string, number]> = [['INFO', 0.7], ['DEBUG', 0.15], ['WARN', 0.1], ['ERROR', 0.04], ['FATAL', 0.01]];
const PATHS = ['/api/orders', '/api/users', '/login', '/health', '/api/cart', '/static/app.js', '/api/search'];

export interface SyntheticLine {
  line: string;
  app: string;
  level: string;
  timestamp: number;
  meta?: Record<string, unknown>;
}

export function lineGenerator(seed = 42) {
  const random = seededRandom(seed);
  const vocabulary = Array.from({ length: 5000 }, (_, i) => {
    let word = '';
    for (let n = i + 7; word.length < 4 || n > 0; n = Math.floor(n / 16)) word += SYLLABLES[n % 16];
    return word;
  });
  const pickWord = zipfPicker(vocabulary.length, 1.07, random);
  const pickApp = zipfPicker(24, 1.2, random);
  const pickHost = zipfPicker(180, 1.1, random);
  const words = (count: number) => Array.from({ length: count }, () => vocabulary[pickWord()]).join(' ');
  const level = () => {
    let r = random();
    for (const [name, p] of LEVELS) if ((r -= p) < 0) return name;
    return 'INFO';
  };
  const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  const ip = () => `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`;

  return {
    host: () => `host-${pickHost()}`,
    next(now: number): SyntheticLine {
      const app = `app-${pickApp()}`;
      const lvl = level();
      if (random() < 0.2) {
        const meta = {
          method: random() < 0.7 ? 'GET' : 'POST',
          path: PATHS[Math.floor(random() * PATHS.length)],
          status: random() < 0.9 ? 200 : random() < 0.5 ? 404 : 500,
          latency_ms: Math.floor(random() * 900),
          user_id: Math.floor(random() * 50_000),
          trace_id: hex(16),
        };
        return { line: JSON.stringify({ level: lvl.toLowerCase(), msg: words(6), ...meta }), app, level: lvl, timestamp: now, meta };
      }
      const template = Math.floor(random() * 4);
      const text =
        template === 0
          ? `${ip()} - - "GET ${PATHS[Math.floor(random() * PATHS.length)]} HTTP/1.1" 200 ${Math.floor(random() * 50_000)} ${words(4)}`
          : template === 1
            ? `cache ${random() < 0.8 ? 'hit' : 'miss'} key=${hex(12)} ${words(8)}`
            : template === 2
              ? `user ${Math.floor(random() * 50_000)} ${words(3)} session=${hex(20)} ${words(10)}`
              : words(12 + Math.floor(random() * 20));
      const planted = random();
      const suffix = planted < 0.05 ? ' timeout' : planted < 0.053 ? ' connection reset by peer' : '';
      return { line: text + suffix, app, level: lvl, timestamp: now };
    },
  };
}
