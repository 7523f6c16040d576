import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { BIN, exited, serveProcess } from '../testing/process.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-backup-wait-'));
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

const dist = (module: string) => pathToFileURL(path.join(path.dirname(BIN), '..', 'dist', 'src', module)).href;

/**
 * A server at the moment `logstead backup` must wait for: it holds the log engine (and its lock),
 * but its control socket opens only `socketAfterMs` later, as a restarted server's does after its
 * first retention pass. It is the server's own parts (the chDB engine and the backup control
 * socket), started in that order in a child process, which prints "engine open" once it
 * holds the lock.
 */
function startingServer(dataDir: string, socketAfterMs: number): ChildProcess {
  const script = `
    import { openChdbExecutor } from ${JSON.stringify(dist('store/chdb-executor.js'))};
    import { openEmbeddedConfigFile } from ${JSON.stringify(dist('repository/snapshot.js'))};
    import { startBackupControl } from ${JSON.stringify(dist('backup/start.js'))};
    const dataDir = ${JSON.stringify(dataDir)};
    const executor = await openChdbExecutor(dataDir + '/clickhouse');
    const configDb = openEmbeddedConfigFile(dataDir);
    console.log('engine open');
    await new Promise((resolve) => setTimeout(resolve, ${socketAfterMs}));
    // The server's own backup control; no usage is asked for here, so it needs no accounts or usage reports.
    await startBackupControl({ settings: { dataDir }, executor, sqlite: configDb, accounts: null, usage: null, log: console });
    console.log('socket open');
    process.on('SIGTERM', async () => { await executor.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

const said = (child: ChildProcess, text: string) =>
  new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before saying "${text}": ${output}`)));
  });

test('logstead backup sent while a server holds the engine but has not opened its socket yet waits for it, and the server takes the backup', async () => {
  const dataDir = path.join(scratch, 'data');
  // A data directory with lines, made by a real server, then stopped.
  const first = await serveProcess(dataDir);
  const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const reply = await fetch(`${first.url}/logs/ingest?hostname=wait`, { method: 'POST', headers: { apikey: ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line: 'kept through a backup' }] }) });
  assert.equal(reply.status, 200);
  first.child.kill('SIGTERM');
  assert.equal((await exited(first.child)).code, 0);

  const server = startingServer(dataDir, 2500);
  await said(server, 'engine open');
  const target = path.join(scratch, 'backup');
  const backup = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [BIN, 'backup', target], { env: { ...process.env, LOGSTEAD_DATA_DIR: dataDir } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
  assert.equal(backup.code, 0, `the backup failed instead of waiting for the server: ${backup.stderr}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(target, 'manifest.json'), 'utf8'));
  assert.equal(manifest.taken, 'online', 'the starting server took it, once its socket was open');
  assert.equal(manifest.lines, 1);
});

test('a server started while another process holds its engine (a backup of the stopped directory) waits for it and starts', async () => {
  const dataDir = path.join(scratch, 'held');
  const first = await serveProcess(dataDir);
  first.child.kill('SIGTERM');
  assert.equal((await exited(first.child)).code, 0);

  // What `logstead backup` does with no server running: it opens the engine itself, for seconds.
  // Here it holds the engine until the server has said that it waits (a release file appears),
  // however long a loaded machine takes to start the server.
  const release = path.join(scratch, 'release-held');
  const script = `
    import fs from 'node:fs';
    import { openChdbExecutor } from ${JSON.stringify(dist('store/chdb-executor.js'))};
    const executor = await openChdbExecutor(${JSON.stringify(dataDir + '/clickhouse')});
    console.log('engine open');
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(${JSON.stringify(release)}) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    setTimeout(async () => { await executor.close(); process.exit(0); }, 500);
  `;
  const holder = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(holder);
  await said(holder, 'engine open');
  const server = await serveProcess(dataDir, {}, undefined, (output) => {
    if (/could not be opened .*waiting up to 60 s/.test(output) && !fs.existsSync(release)) fs.writeFileSync(release, '');
  });
  assert.ok(fs.existsSync(release), 'the server waited for the engine before it could listen');
  assert.equal((await exited(holder)).code, 0);
  assert.match(server.output(), /could not be opened .*waiting up to 60 s/, 'it said why it waited');
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  server.child.kill('SIGTERM');
  assert.equal((await exited(server.child)).code, 0);
});
