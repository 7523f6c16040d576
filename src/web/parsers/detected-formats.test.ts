import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from '../../ingest/formats/index.js';
import { CRON, GO_PANIC, HAPROXY_HTTP, HEROKU_ROUTER, RAILS, ALB_HTTP } from '../../ingest/formats/samples.js';
import { detectedFormatsText } from './detected-formats.js';

test('the Parsing rules page names every format ingest parses on its own, each once', () => {
  assert.equal(
    detectedFormatsText(),
    'JSON, logfmt, syslog headers, Apache and nginx access and error logs, HAProxy, AWS ALB and CloudFront, Heroku router, Docker, Rails, Java stack traces, Go panics, PostgreSQL, MySQL and MariaDB, Redis and cron',
  );
});

test('formats the page names beyond the first few are ones ingest claims', () => {
  // The ones the page did not name before, read by the same function ingest calls.
  const claimed = [HAPROXY_HTTP, ALB_HTTP, HEROKU_ROUTER, RAILS[0], GO_PANIC, CRON].map((line) => parseFormat(line, '')?.logtype);
  assert.deepEqual(claimed, ['haproxy', 'alb', 'heroku', 'rails', 'go', 'cron']);
});
