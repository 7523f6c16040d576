import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { testEngineEnv } from '../testing/log-engine.js';
import { BIN } from '../testing/process.js';

let server: TestServer;
const DAY = 86_400_000;
const DAY1 = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const RANGE = { from: String(DAY1 - DAY), to: String(Date.now()) };

before(async () => {
  server = await startTestServer();
  const reply = await request(`${server.url}/logs/ingest?hostname=cli-host`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: [{ line: 'twelve bytes', app: 'cli-app', timestamp: DAY1 + 1000 }, { line: 'four', app: 'cli-app', timestamp: DAY1 + 2000 }] }),
  });
  assert.equal(reply.status, 200, reply.text);
});
after(() => server.close());

/**
 * Runs the real CLI, asynchronously: the server lives in this process and must answer its socket
 * (and, on the server executor, the ClickHouse stand-in lives here too). Its settings point at the
 * same log store as the server's.
 */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, LOGSTEAD_DATA_DIR: server.dataDir, ...(await testEngineEnv(server.dataDir)) };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const expected = {
  account: '',
  from: DAY1 - DAY,
  totals: { lines: 2, bytes: 16, metaUnindexedLines: 0 },
  days: [{ day: new Date(DAY1).toISOString().slice(0, 10), lines: 2, bytes: 16 }],
  topApps: [{ name: 'cli-app', lines: 2, bytes: 16 }],
  topHosts: [{ name: 'cli-host', lines: 2, bytes: 16 }],
  retentionDays: 30,
  retentionIsDefault: true,
};

test('org usage asks the running server (which holds the store) and prints what GET /v1/usage answers', async () => {
  const result = await cli('org', 'usage', server.org.account, '--from', RANGE.from, '--to', RANGE.to);
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  const api = await request(`${server.url}/v1/usage?from=${RANGE.from}&to=${RANGE.to}`, { headers: { servicekey: server.org.serviceKey } });
  assert.deepEqual(printed, api.json);
  assert.deepEqual(printed, { ...expected, account: server.org.account, to: Number(RANGE.to) });

  const bad = await cli('org', 'usage', server.org.account, '--from', 'last week');
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /Parameter "from" must be a Unix time/);
  const unknown = await cli('org', 'usage', 'nosuchorg');
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /No organisation has the account id "nosuchorg"/);
});

// Offline, the command opens the store the settings name: the data directory's embedded engine,
// or the ClickHouse server (LOGSTEAD_CLICKHOUSE_URL) in the server executor's run.
test('org usage opens the store itself when no server runs', async () => {
  await server.running.close();
  try {
    const result = await cli('org', 'usage', server.org.account, '--from', RANGE.from, '--to', RANGE.to);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { ...expected, account: server.org.account, to: Number(RANGE.to) });
    const bad = await cli('org', 'usage', server.org.account, '--to', '1', '--from', '5');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /The time range is reversed: "from" must not be later than "to"/);
  } finally {
    await server.restart();
  }
});
