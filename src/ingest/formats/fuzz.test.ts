import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import * as sample from './samples.js';
import { seededRandom } from '../../testing/seeded-random.js';


const SAMPLES = [
  '127.0.0.1 - bob [26/Nov/2026:15:53:23 +0000] "GET /a HTTP/1.1" 404 153 "-" "curl/7.88.1" 0.001',
  '2026/11/26 15:53:23 [error] 1#1: *2 open() failed, client: 1.2.3.4, server: , request: "GET / HTTP/1.1", host: "x"',
  '[Fri Sep 09 10:42:29.902022 2011] [core:error] [pid 35708:tid 4328636416] [client 72.15.99.187] AH00128: File',
  '<165>1 2003-10-11T22:14:15.003Z host app 12 ID47 [a@1 k="v\\"x"] msg',
  '<34>Oct 11 22:14:15 mymachine su[12]: failed',
  'time=2026-11-26T10:00:00Z level=info msg="a \\"b\\"" n=1.5',
  '2026-11-26T10:00:00.123+01:00 [main] ERROR x - y',
  'ERROR:root:boom',
  'Nov 26, 2026 10:00:00 AM a b\nSEVERE: x',
  '2026-11-28 10:00:00.123 UTC [1234] postgres@db LOG:  duration: 12.3 ms  statement: SELECT 1',
  '2026-11-28T10:00:00.123456Z 0 [System] [MY-010116] [Server] starting',
  '2256:M 28 Nov 2026 16:53:57.790 * Ready to accept connections',
  sample.HAPROXY_HTTP,
  sample.HAPROXY_TCP,
  sample.HEROKU_ROUTER,
  sample.HEROKU_CLI,
  sample.RAILS[2],
  sample.RAILS_RUBY_LOGGER,
  sample.TOMCAT_TRACE,
  sample.UNCAUGHT,
  sample.GO_PANIC,
  sample.CRON,
  sample.ALB_HTTPS,
  sample.CLOUDFRONT_HIT,
];
const ALPHABET = ' -[]<>"\\=:/,.*#+0123456789AZaz\n\t\u00e9\ud83d\ude00\ud800';

test('the format parsers never throw: mutated real lines and random bytes, seeded', () => {
  for (const seed of [1, 2, 3, 28]) {
    const next = seededRandom(seed);
    const pick = (text: string) => text[Math.floor(next() * text.length)];
    for (let round = 0; round < 20_000; round++) {
      let line: string;
      if (next() < 0.8) {
        const chars = [...SAMPLES[Math.floor(next() * SAMPLES.length)]];
        const edits = 1 + Math.floor(next() * 4);
        for (let edit = 0; edit < edits; edit++) {
          const at = Math.floor(next() * (chars.length + 1));
          const kind = next();
          if (kind < 0.4) chars.splice(at, 1, pick(ALPHABET));
          else if (kind < 0.7) chars.splice(at, 0, pick(ALPHABET));
          else if (kind < 0.9) chars.splice(at, 1);
          else chars.length = at; // cut short
        }
        line = chars.join('');
      } else {
        line = Array.from({ length: Math.floor(next() * 80) }, () => pick(ALPHABET)).join('');
      }
      try {
        const parsed = parseFormat(line, '');
        if (parsed?.fields) JSON.stringify(parsed.fields);
      } catch (error) {
        assert.fail(`seed ${seed}, round ${round}: ${JSON.stringify(line)} threw ${(error as Error).stack}`);
      }
    }
  }
});
