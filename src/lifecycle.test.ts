import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import WebSocket from 'ws';
import { jsonLines, request } from './testing/harness.js';
import { BIN, exited, serveProcess } from './testing/process.js';

const dataDirs: string[] = [];
after(() => dataDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/**
 * Sends numbered lines in many concurrent requests until told to stop, and records which were
 * acknowledged with 200. Requests cut off by the stop may fail; those lines were never promised.
 */
function sendUntilStopped(url: string, key: string) {
  const acknowledged = new Set<string>();
  let stopped = false;
  let sequence = 0;
  const worker = async () => {
    while (!stopped) {
      const batch = Array.from({ length: 200 }, () => `line-${sequence++}`);
      try {
        const reply = await request(`${url}/logs/ingest?hostname=h`, {
          method: 'POST',
          headers: { apikey: key, 'content-type': 'application/json' },
          body: JSON.stringify({ lines: batch.map((line) => ({ line })) }),
        });
        if (reply.status === 200) batch.forEach((line) => acknowledged.add(line));
      } catch {
        // connection closed by the stop
      }
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  return {
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

async function storedLines(url: string, serviceKey: string): Promise<Set<string>> {
  const stored = new Set<string>();
  let token: string | null = null;
  do {
    const page: string = token ? `&pagination_id=${encodeURIComponent(token)}` : '';
    const reply = await request(`${url}/v2/export?from=0&to=${Date.now() + 86_400_000}&prefer=head${page}`, {
      headers: { servicekey: serviceKey },
    });
    assert.equal(reply.status, 200, reply.text);
    for (const line of reply.json.lines) stored.add(line._line);
    token = reply.json.pagination_id;
  } while (token);
  return stored;
}

async function untilAcknowledged(sender: { acknowledged: Set<string> }, count: number) {
  while (sender.acknowledged.size < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-life-'));
  dataDirs.push(dir);
  return dir;
}

test('every line acknowledged before kill -9 is there after a restart', async () => {
  const dataDir = freshDataDir();
  const first = await serveProcess(dataDir);
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const sender = sendUntilStopped(first.url, credentials.ingestionKey);
  await untilAcknowledged(sender, 5000);
  first.child.kill('SIGKILL');
  await exited(first.child);
  await sender.stop();
  const acknowledged = new Set(sender.acknowledged);

  const second = await serveProcess(dataDir);
  assert.doesNotMatch(second.output(), /Created the default organisation/, 'a restart keeps the organisation');
  const stored = await storedLines(second.url, credentials.serviceKey);
  const missing = [...acknowledged].filter((line) => !stored.has(line));
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${acknowledged.size} acknowledged lines are missing`);
  second.child.kill('SIGTERM');
  assert.deepEqual(await exited(second.child), { code: 0, signal: null });
});

test('SIGTERM stops accepting, writes everything acknowledged and exits cleanly', async () => {
  const dataDir = freshDataDir();
  const first = await serveProcess(dataDir);
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const sender = sendUntilStopped(first.url, credentials.ingestionKey);
  const tail = new WebSocket(`${first.url.replace('http', 'ws')}/ws/tail`, 'json', { headers: { servicekey: credentials.serviceKey } });
  const tailClosed = new Promise<number>((resolve) => tail.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => tail.once('open', resolve).once('error', reject));
  await untilAcknowledged(sender, 3000);
  const signalled = Date.now();
  first.child.kill('SIGTERM');
  assert.deepEqual(await exited(first.child), { code: 0, signal: null }, first.output());
  // The promise operators rely on: a stop under load is over within 10 s (the default grace).
  assert.ok(Date.now() - signalled <= 10_000, `exited ${Date.now() - signalled} ms after SIGTERM`);
  assert.equal(await tailClosed, 1001, 'live tails are told the server is going away');
  await sender.stop();
  assert.match(first.output(), /SIGTERM: finishing acknowledged writes/);

  const second = await serveProcess(dataDir);
  const stored = await storedLines(second.url, credentials.serviceKey);
  const missing = [...sender.acknowledged].filter((line) => !stored.has(line));
  assert.equal(missing.length, 0, `${missing.length} of ${sender.acknowledged.size} acknowledged lines are missing`);
  second.child.kill('SIGINT');
  assert.deepEqual(await exited(second.child), { code: 0, signal: null });
});

test('the first start saves the keys in a file only its owner can read', async () => {
  const dataDir = freshDataDir();
  const started = await serveProcess(dataDir);
  const file = path.join(dataDir, 'initial-credentials.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const credentials = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const field of ['account', 'ingestionKey', 'serviceKey', 'ingestUrl', 'apiUrl']) assert.ok(credentials[field], field);
  assert.equal(credentials.ingestUrl, `${started.url}/logs/ingest`, 'the address it really listens on, not port 0');
  assert.equal(fs.statSync(dataDir).mode & 0o077, 0, 'the data directory is private too');
  assert.match(started.output(), new RegExp(credentials.ingestionKey));
  assert.match(started.output(), /\/logs\/ingest/);
  // The keys work, and the database holds them only hashed.
  const reply = await request(`${started.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: credentials.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: [{ line: 'first' }] }),
  });
  assert.equal(reply.status, 200);
  const exported = await request(`${started.url}/v1/export?from=0&to=${Date.now() + 1000}`, {
    headers: { servicekey: credentials.serviceKey },
  });
  assert.deepEqual(jsonLines(exported.text).map((line) => line._line), ['first']);
  started.child.kill('SIGTERM');
  await exited(started.child);
  for (const name of fs.readdirSync(dataDir).filter((file) => file.startsWith('config.sqlite'))) {
    const database = fs.readFileSync(path.join(dataDir, name));
    assert.equal(database.includes(credentials.ingestionKey), false, name);
    assert.equal(database.includes(credentials.serviceKey), false, name);
  }
});

test('a start that fails creates no organisation, and says why', async () => {
  const dataDir = path.join(freshDataDir(), 'nested');
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'verbose' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  assert.deepEqual(await exited(child), { code: 1, signal: null });
  assert.match(output, /LOGSTEAD_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/);
  assert.equal(fs.existsSync(path.join(dataDir, 'initial-credentials.json')), false);
});

test('shutdown does not wait forever for a client that never finishes its request', async () => {
  const dataDir = freshDataDir();
  const started = await serveProcess(dataDir, { LOGSTEAD_SHUTDOWN_GRACE_MS: '500' });
  const { port } = new URL(started.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('error', () => {});
  socket.write('POST /logs/ingest?hostname=h HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"lines":[');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const begin = Date.now();
  started.child.kill('SIGTERM');
  assert.deepEqual(await exited(started.child), { code: 0, signal: null }, started.output());
  assert.ok(Date.now() - begin < 5000, `took ${Date.now() - begin} ms`);
  socket.destroy();
});

test('npm start passes SIGTERM on to the server, which exits cleanly', async () => {
  const dataDir = freshDataDir();
  const started = await serveProcess(dataDir, {}, ['npm', 'start', '--silent']);
  started.child.kill('SIGTERM');
  await exited(started.child);
  // Had the signal stopped at npm's shell, the server would still be answering here.
  await assert.rejects(fetch(`${started.url}/healthz`), 'nothing listens any more');
});

test("the server sets V8's heap growth itself, over a command line's own", async () => {
  const dataDir = freshDataDir();
  // Every collection is a full one under --gc-global, so V8 reports the limit it sets (and the
  // factor it used) soon after the start; the command line asks for the factor the server overrides.
  const started = await serveProcess(dataDir, {}, [process.execPath, '--gc-global', '--trace-gc-verbose', '--heap-growing-percent=200', BIN, 'serve']);
  const limits = () => [...started.output().matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((match) => match[1]);
  assert.ok(limits().includes('3.0'), 'the command line took effect before the server started');
  const before = limits().length;
  // Two megabytes of lines to take in are sure to start a collection once the server runs.
  const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const reply = await request(`${started.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: Array.from({ length: 10_000 }, (_, i) => ({ line: `line ${i} `.padEnd(200, 'x') })) }),
  });
  assert.equal(reply.status, 200);
  for (let i = 0; i < 50 && limits().length === before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(limits().at(-1), '2.0', 'the heap doubles between full collections (src/cli.ts)');
  started.child.kill('SIGTERM');
  await exited(started.child);
});
