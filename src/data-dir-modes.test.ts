import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { eventually, jsonLines, request } from './testing/harness.js';
import { exited, serveProcess } from './testing/process.js';

/**
 * A first start of `logstead serve` on an empty data directory, as a new user runs it, with the
 * machine's usual umask (022): the configuration (config.sqlite and its WAL), the engine's files
 * and the keys are readable by their owner only, as secret.key always was.
 */

/** Every file and folder under `dir` whose mode lets the group or others in, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      const { mode } = fs.lstatSync(file);
      if (!entry.isSymbolicLink() && (mode & 0o077) !== 0) found.push(`${path.relative(dir, file)} ${(mode & 0o777).toString(8)}`);
      if (entry.isDirectory()) walk(file);
    }
  };
  walk(dir);
  return found;
}

test('after a first start and a stored line, nothing in the data directory is readable by others', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-modes-'));
  const dataDir = path.join(parent, 'data');
  const previous = process.umask(0o022); // the child inherits it: a usual shell's umask
  let server;
  try {
    server = await serveProcess(dataDir, { LOGSTEAD_SECRET_KEY: '' });
  } finally {
    process.umask(previous);
  }
  try {
    const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const reply = await request(`${server.url}/logs/ingest?hostname=modes`, {
      method: 'POST',
      headers: { apikey: credentials.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: 'a line the engine writes to disk', app: 'modes' }] }),
    });
    assert.equal(reply.status, 200, reply.text);
    await eventually(async () => {
      const found = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}`, { headers: { servicekey: credentials.serviceKey } });
      return jsonLines(found.text).length === 1 || undefined;
    }, 20_000, 'the line stored');

    const mode = (name: string) => (fs.statSync(path.join(dataDir, name)).mode & 0o777).toString(8);
    assert.equal(mode('config.sqlite'), '600');
    assert.equal(mode('config.sqlite-wal'), '600');
    assert.equal(mode('secret.key'), '600');
    assert.equal(mode('clickhouse'), '700');
    assert.ok(fs.readdirSync(path.join(dataDir, 'clickhouse')).length > 0, 'the engine wrote its files');
    assert.deepEqual(openToOthers(dataDir), [], 'nothing readable by the group or others');
  } finally {
    server.child.kill('SIGTERM');
    await exited(server.child);
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
