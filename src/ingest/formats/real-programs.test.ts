/**
 * Lines written by real programs, sent as an agent sends a file's lines (POST /logs/ingest, each
 * line with its app and file), and searched by the fields Logstead parsed from them: Debian's
 * nginx (its `combined` access log, a log_format adding `$request_time` as many configure it, and
 * its error log), Python's `logging` in its default format and with a time, a traceback kept in
 * its line, and Java's java.util.logging, whose default format puts the level on a second line.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../testing/free-port.js';
import { type TestServer, exportRecords, ingestLines, startTestServer } from '../../testing/harness.js';

const NGINX = '/usr/sbin/nginx';

/** Installed by .ci/run; where it is required (CI), a missing nginx is a failure, not a skip. */
function nginxMissing(): string | undefined {
  if (fs.existsSync(NGINX)) return undefined;
  if (process.env.LOGSTEAD_REQUIRE_SENDERS === 'true') throw new Error(`nginx is required here, but ${NGINX} is not installed (see .ci/run)`);
  return 'nginx is not installed (see .ci/run)';
}

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const send = (lines: Array<Record<string, unknown>>) => ingestLines(server, 'web-1', lines);
const search = (query: string, from: number) => exportRecords(server, query, from);

const fileLines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');

describe('nginx', { skip: nginxMissing() }, () => {
  let dir: string;
  let nginx: ChildProcess;
  let base: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-nginx-'));
    // Readable by nginx's workers, which drop root for nobody.
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(path.join(dir, 'www'));
    fs.writeFileSync(path.join(dir, 'www', 'index.html'), 'hello');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/${kind};`).join(' ');
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  ${temp}
  log_format timed '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time';
  access_log ${dir}/access.log combined;
  server {
    listen 127.0.0.1:${port};
    root ${dir}/www;
    location = /boom { return 503; }
    location /timed/ { access_log ${dir}/timed.log timed; return 200 "timed"; }
  }
}
`,
    );
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'inherit' });
    for (let tries = 0; ; tries++) {
      try {
        await fetch(`${base}/`);
        break;
      } catch (error) {
        if (tries > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  after(async () => {
    // An nginx that already exited (a bad configuration, a port taken) has nothing to wait for.
    if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('its access and error logs are searched by status, method, path, response time and level', async () => {
    const from = Date.now() - 60_000;
    const agent = { 'user-agent': 'curl/7.88.1', authorization: `Basic ${Buffer.from('bob:secret').toString('base64')}` };
    assert.equal((await fetch(`${base}/`, { headers: agent })).status, 200);
    assert.equal((await fetch(`${base}/missing`, { headers: agent })).status, 404);
    assert.equal((await fetch(`${base}/boom`, { method: 'POST', headers: { ...agent, referer: 'https://shop.example/cart' } })).status, 503);
    assert.equal((await fetch(`${base}/timed/report?week=47`, { headers: agent })).status, 200);
    // nginx writes a request's log line once it has answered; give the worker a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Only this test's requests: the start-up probe's line (user agent "node") may be written after
    // the probe's answer arrived, so counting the lines before these requests could miss it.
    const access = fileLines(path.join(dir, 'access.log')).filter((line) => line.endsWith('"curl/7.88.1"'));
    const timed = fileLines(path.join(dir, 'timed.log'));
    const errors = fileLines(path.join(dir, 'error.log')).filter((line) => line.includes('[error]'));
    assert.equal(access.length, 3, access.join('\n'));
    assert.equal(timed.length, 1);
    assert.ok(errors.length >= 1, 'nginx logged the missing file');
    await send([
      ...access.map((line) => ({ line, app: 'nginx', file: '/var/log/nginx/access.log' })),
      ...timed.map((line) => ({ line, app: 'nginx', file: '/var/log/nginx/timed.log' })),
      ...errors.map((line) => ({ line, app: 'nginx', file: '/var/log/nginx/error.log' })),
    ]);

    const failing = await search('status:>=500', from);
    assert.equal(failing.length, 1);
    const [boom] = failing;
    assert.equal(boom._logtype, 'nginx');
    assert.equal(boom._status, 503);
    assert.equal(boom._method, 'POST');
    assert.equal(boom._path, '/boom');
    assert.equal(boom.remote_user, 'bob');
    assert.equal(boom.referrer, 'https://shop.example/cart');
    assert.equal(boom.user_agent, 'curl/7.88.1');
    assert.equal(boom.remote_addr, '127.0.0.1');
    assert.equal(boom.protocol, 'HTTP/1.1');

    assert.equal((await search('status:404', from)).length, 1);
    assert.equal((await search('method:GET status:200', from)).length, 2);
    const [report] = await search('response_time:>=0', from);
    assert.equal(report?._path, '/timed/report?week=47');
    assert.equal(typeof report.response_time, 'number');

    const [missing] = await search('level:error', from);
    assert.equal(missing._logtype, 'nginx');
    assert.equal(missing._path, '/missing');
    assert.match(missing.message, /No such file or directory/);
  });
});

/** What a Python program writes through `logging`, configured by `setup` (records go to stdout). */
const pythonLogs = (setup: string, body: string) => execFileSync('python3', ['-c', `import logging, sys\n${setup}\n${body}`], { encoding: 'utf8' });

/** What java.util.logging writes (to stderr) for a SEVERE record, or undefined where there is no Java. */
function javaLog(): string | undefined {
  const source = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-java-')), 'Shop.java');
  fs.writeFileSync(source, 'public class Shop { public static void main(String[] a) { java.util.logging.Logger.getLogger("shop").severe("payment failed"); } }');
  try {
    const run = spawnSync('java', [source], { encoding: 'utf8', timeout: 60_000 });
    if (run.error) throw run.error;
    return run.stderr;
  } catch {
    return undefined;
  } finally {
    fs.rmSync(path.dirname(source), { recursive: true, force: true });
  }
}

describe('Python and Java logging', () => {
  test("Python's default format and one with a time give the level, a traceback stays in its line; Java's default gives the level on its second line", async (t) => {
    const from = Date.now() - 60_000;
    const plain = pythonLogs('logging.basicConfig(stream=sys.stdout)', "logging.getLogger('checkout').error('card declined')").trim();
    assert.equal(plain, 'ERROR:checkout:card declined');
    // Each record is one write, which an agent sends as one line; a NUL line separates them here.
    const timed = pythonLogs(
      "logging.basicConfig(stream=sys.stdout, format='%(asctime)s %(levelname)s %(name)s: %(message)s')\nlog = logging.getLogger('billing')",
      "try:\n  1/0\nexcept Exception:\n  log.exception('invoice failed')\nprint('\\x00')\nlog.warning('disk at 91%')",
    );
    const [traceback, warning] = timed.split('\n\x00\n').map((record) => record.trim());
    assert.match(traceback, /invoice failed\nTraceback[\s\S]*ZeroDivisionError: division by zero$/);
    const lines: Array<Record<string, unknown>> = [
      { line: plain, app: 'checkout' },
      { line: traceback, app: 'billing' },
      { line: warning, app: 'billing' },
    ];
    const java = javaLog()?.trim();
    if (java) {
      assert.match(java, /\nSEVERE: payment failed$/);
      lines.push({ line: java, app: 'shop' });
    } else t.diagnostic('no Java runtime here: its record was not sent');
    await send(lines);

    const [checkout] = await search('app:checkout', from);
    assert.equal(checkout.level, 'ERROR');
    assert.equal(checkout.logger, 'checkout');
    const billing = await search('app:billing', from);
    const failed = billing.find((record) => String(record._line).includes('invoice failed'))!;
    assert.equal(failed.level, 'ERROR');
    assert.match(failed._line, /ZeroDivisionError: division by zero$/, 'the traceback is kept in its line');
    assert.equal(billing.find((record) => String(record._line).includes('disk at'))!.level, 'WARN');
    if (java) {
      const [shop] = await search('app:shop', from);
      assert.equal(shop.level, 'SEVERE', "Java's SEVERE, on the record's second line, is its level");
    }
  });
});
