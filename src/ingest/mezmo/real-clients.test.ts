import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
// The official Node SDK, unmodified: what it puts on the wire is what real users send.
import { createLogger } from '@logdna/logger';
import { type TestServer, jsonLines, request, startTestServer } from '../../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('@logdna/logger delivers lines, levels, apps and both meta forms', async () => {
  const logger = createLogger(server.org.ingestionKey, {
    url: `${server.url}/logs/ingest`,
    hostname: 'sdk-host',
    app: 'checkout',
    env: 'production',
    tags: ['sdk', 'node'],
    levels: ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL', 'HTTP'], // winston adds levels like HTTP
  });
  const errors: unknown[] = [];
  logger.on('error', (error: unknown) => errors.push(error));
  logger.info!('order placed', { meta: { order: 1 } });
  logger.warn!('slow payment provider', { meta: { provider: 'acme' }, indexMeta: true });
  logger.log('custom level line', { level: 'http', app: 'gateway' });
  logger.error!({ event: 'payment failed', code: 'E42' });
  const cleared = once(logger, 'cleared');
  logger.flush();
  await cleared;
  assert.deepEqual(errors, []);

  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&prefer=head`, {
    headers: { servicekey: server.org.serviceKey },
  });
  const lines = jsonLines(reply.text);
  assert.deepEqual(
    lines.map((line) => [line._line, line.level, line._app]),
    [
      ['order placed', 'INFO', 'checkout'],
      ['slow payment provider', 'WARN', 'checkout'],
      ['custom level line', 'HTTP', 'gateway'],
      ['{"event":"payment failed","code":"E42"}', 'ERROR', 'checkout'],
    ],
  );
  for (const line of lines) {
    assert.equal(line._host, 'sdk-host');
    assert.equal(line.env, 'production');
    assert.deepEqual(line.tags, ['sdk', 'node']);
  }
  assert.deepEqual(lines[0].meta, { order: 1 }, 'meta sent as a JSON string');
  assert.deepEqual(lines[1].meta, { provider: 'acme' }, 'meta sent as an object');
  assert.equal(lines[3].event, 'payment failed', 'a JSON line is parsed');
});
