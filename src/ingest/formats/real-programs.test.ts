/**
 * Lines written by real programs, sent as an agent sends a file's lines (POST /logs/ingest, each
 * line with its app and file), and searched by the fields Logstead parsed from them: Debian's
 * nginx (its `combined` access log, a log_format adding `$request_time` as many configure it, and
 * its error log), Python's `logging` in its default format and with a time, a traceback kept in
 * its line, and Java's java.util.logging, whose default format puts the level on a second line;
 * the machine's PostgreSQL (Debian's log file) and MariaDB (its error log), a Redis started here,
 * HAProxy's HTTP and TCP logs as it sends them to a log server, and Debian's cron, through syslog. */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../testing/free-port.js';
import { type TestServer, exportRecords, ingestLines, startTestServer } from '../../testing/harness.js';

const NGINX = '/usr/sbin/nginx';

/** Installed by .ci/run; where it is required (CI), a missing program is a failure, not a skip. */
function programMissing(name: string, file: string): string | undefined {
  if (fs.existsSync(file)) return undefined;
  if (process.env.LOGSTEAD_REQUIRE_SENDERS === 'true') throw new Error(`${name} is required here, but ${file} is not installed (see .ci/run)`);
  return `${name} is not installed (see .ci/run)`;
}
const nginxMissing = () => programMissing('nginx', NGINX);

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

/** Lines added to a file since `size` bytes, once `done` says they are all there (the program writes them a moment later). */
async function newLines(file: string, size: number, done: (lines: string[]) => boolean): Promise<string[]> {
  for (let tries = 0; ; tries++) {
    // (A program just started may not have made its file yet.)
    const lines = (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '').slice(size).split('\n').filter((line) => line !== '');
    if (done(lines)) return lines;
    if (tries > 100) throw new Error(`${file} did not get the expected lines; it has:\n${lines.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The machine's PostgreSQL server (127.0.0.1:5432, as npm run test:postgres needs) and its Debian log file. */
function postgresLog(): string | undefined {
  const dir = '/var/log/postgresql';
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((name) => /^postgresql-\d+-main\.log$/.test(name)) : undefined;
  return file && path.join(dir, file);
}

describe('PostgreSQL', { skip: programMissing('PostgreSQL’s log', postgresLog() ?? '/var/log/postgresql/postgresql-N-main.log') }, () => {
  test('a slow statement and an error, as the server logged them, are searched by duration, severity and statement', async () => {
    const from = Date.now() - 60_000;
    const file = postgresLog()!;
    const size = fs.statSync(file).size;
    const marker = `logstead_pg_${process.pid}`;
    // Each -c is its own statement in one session: the first makes every statement's duration logged.
    spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-c', 'SET log_min_duration_statement = 0', '-c', `SELECT pg_sleep(0.02), '${marker}'`, '-c', `SELECT 1/0 AS ${marker}`], { encoding: 'utf8' });
    const lines = (await newLines(file, size, (found) => found.filter((line) => line.includes(marker)).length >= 2 && found.some((line) => line.includes('division by zero')))).filter(
      (line) => line.includes(marker) || line.includes('division by zero'),
    );
    await send(lines.map((line) => ({ line, app: 'postgresql', file })));
    const slow = (await search('duration_ms:>=20', from)).filter((record) => String(record.statement).includes(marker));
    assert.equal(slow.length, 1, lines.join('\n'));
    assert.equal(slow[0]._logtype, 'postgresql');
    assert.equal(slow[0].severity, 'LOG');
    assert.equal(typeof slow[0].pid, 'number');
    const [failed] = await search('severity:ERROR app:postgresql', from);
    assert.equal(failed.level, 'ERROR');
    assert.equal(failed.message, 'division by zero');
    const [statement] = await search(`severity:STATEMENT app:postgresql`, from);
    assert.equal(statement.statement, `SELECT 1/0 AS ${marker}`);
  });
});

const MARIADB_LOG = '/var/log/mysql/error.log';

describe('MariaDB', { skip: programMissing('MariaDB’s error log', MARIADB_LOG) }, () => {
  test('a connection dropped before it authenticated, as the server logged it, is searched by level and thread', async () => {
    const from = Date.now() - 60_000;
    const size = fs.statSync(MARIADB_LOG).size;
    await new Promise<void>((resolve, reject) => {
      // Read (and drop) the server's greeting, or the stream stays paused and its close never comes.
      const socket = net.connect({ host: '127.0.0.1', port: 3306 }, () => socket.end());
      socket.resume();
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });
    const lines = (await newLines(MARIADB_LOG, size, (found) => found.some((line) => line.includes('Aborted connection')))).filter((line) => line.includes('Aborted connection'));
    await send(lines.map((line) => ({ line, app: 'mariadb', file: MARIADB_LOG })));
    const [aborted] = await search('app:mariadb level:warn', from);
    assert.equal(aborted._logtype, 'mysql');
    assert.equal(typeof aborted.thread_id, 'number');
    assert.match(aborted.message, /^Aborted connection/);
  });
});

const REDIS = '/usr/bin/redis-server';

describe('Redis', { skip: programMissing('redis-server', REDIS) }, () => {
  test('its start and shutdown, as it logged them, are searched by role and level', async () => {
    const from = Date.now() - 60_000;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-redis-'));
    const port = await freePort();
    const file = path.join(dir, 'redis.log');
    const redis = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--logfile', file, '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    try {
      await newLines(file, 0, (lines) => lines.some((line) => line.includes('Ready to accept connections')));
      spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
      const exited = redis.exitCode === null ? new Promise((resolve) => redis.once('exit', resolve)) : undefined;
      await exited;
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => /^\d+:[MSCX] /.test(line));
      await send(lines.map((line) => ({ line, app: 'redis', file })));
      const [ready] = await search('app:redis "Ready to accept connections"', from);
      assert.equal(ready._logtype, 'redis');
      assert.equal(ready.role, 'master');
      assert.equal(ready.pid, redis.pid);
      assert.ok((await search('app:redis level:warn', from)).some((record) => /shutdown/i.test(record.message)), 'the shutdown is a # (warning) line');
    } finally {
      if (redis.exitCode === null) redis.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const HAPROXY = '/usr/sbin/haproxy';

describe('HAProxy', { skip: programMissing('haproxy', HAPROXY) }, () => {
  test('its HTTP and TCP logs, sent to a log server as it sends them, are searched by status, timers and backend', async () => {
    const from = Date.now() - 60_000;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-haproxy-'));
    const messages: string[] = [];
    const logServer = dgram.createSocket('udp4');
    logServer.on('message', (message) => messages.push(message.toString('utf8')));
    await new Promise<void>((resolve) => logServer.bind(0, '127.0.0.1', resolve));
    const backend = http.createServer((request, reply) => {
      reply.statusCode = request.url === '/boom' ? 500 : 200;
      reply.end('ok');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const [httpPort, tcpPort] = [await freePort(), await freePort()];
    fs.writeFileSync(
      path.join(dir, 'haproxy.cfg'),
      `global
  log 127.0.0.1:${logServer.address().port} local0
defaults
  log global
  timeout connect 5s
  timeout client 5s
  timeout server 5s
frontend web
  mode http
  option httplog
  bind 127.0.0.1:${httpPort}
  default_backend app
frontend raw
  mode tcp
  option tcplog
  bind 127.0.0.1:${tcpPort}
  default_backend app_tcp
backend app
  mode http
  server s1 127.0.0.1:${(backend.address() as net.AddressInfo).port}
backend app_tcp
  mode tcp
  server s1 127.0.0.1:${(backend.address() as net.AddressInfo).port}
`,
    );
    const haproxy = spawn(HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: 'inherit' });
    try {
      for (let tries = 0; ; tries++) {
        try {
          await fetch(`http://127.0.0.1:${httpPort}/ready`);
          break;
        } catch (error) {
          if (tries > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      assert.equal((await fetch(`http://127.0.0.1:${httpPort}/boom`)).status, 500);
      assert.equal((await fetch(`http://127.0.0.1:${tcpPort}/through-tcp`, { headers: { connection: 'close' } })).status, 200);
      const isRequest = (message: string) => message.includes(' [') && / (app|app_tcp)\/s1 /.test(message);
      for (let tries = 0; messages.filter(isRequest).length < 3; tries++) {
        if (tries > 100) throw new Error(`HAProxy logged:\n${messages.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await send(messages.map((line) => ({ line, app: 'syslog' })));
      const [boom] = await search('status:>=500 backend:app', from);
      assert.equal(boom?._logtype, 'haproxy', messages.join('\n'));
      assert.equal(boom._app, 'haproxy');
      assert.equal(boom._path, '/boom');
      assert.equal(boom.frontend, 'web');
      assert.equal(typeof boom.time_total_ms, 'number');
      const [tcp] = await search('backend:app_tcp', from);
      assert.equal(tcp._logtype, 'haproxy');
      assert.equal(tcp.frontend, 'raw');
      assert.ok(tcp._bytes > 0);
      assert.equal(tcp._status, undefined, 'a TCP log has no status');
    } finally {
      if (haproxy.exitCode === null) {
        const exited = new Promise((resolve) => haproxy.once('exit', resolve));
        haproxy.kill('SIGUSR1'); // a soft stop
        await exited;
      }
      backend.close();
      logServer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const CRON = '/usr/sbin/cron';

/**
 * cron logs only through syslog(3), to /dev/log, and reads the machine's crontabs. It runs here in
 * a private mount namespace (`unshare -m`, so root) where /dev/log is this test's socket and
 * /etc/crontab, /etc/cron.d and the spool hold one `@reboot` job: the machine's own cron files and
 * log socket are untouched. A small Python program receives the datagrams (Node has no Unix
 * datagram sockets).
 */
const CRON_NAMESPACE = `set -e
D=$1
mount --make-rprivate /
mkdir -p $D/olddev $D/cron.d $D/crontabs
mount --bind /dev $D/olddev
mount -t tmpfs tmpfs /dev
for n in null zero random urandom; do touch /dev/$n; mount --bind $D/olddev/$n /dev/$n; done
ln -s $D/log.sock /dev/log
mount -t tmpfs tmpfs /run
printf '@reboot root echo logstead-cron-job\\n' > $D/cron.d/logstead
mount --bind $D/cron.d /etc/cron.d
printf 'SHELL=/bin/sh\\n' > $D/crontab
mount --bind $D/crontab /etc/crontab
mount --bind $D/crontabs /var/spool/cron/crontabs
exec ${CRON} -f
`;
const SYSLOG_RECEIVER = `import socket, sys, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
print('ready', flush=True)
while True:
    print(s.recv(65536).decode('utf8', 'replace').replace('\\n', ' '), flush=True)
`;

function cronCannotRun(): string | undefined {
  const missing = programMissing('cron', CRON);
  if (missing) return missing;
  if (process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0) return undefined;
  if (process.env.LOGSTEAD_REQUIRE_SENDERS === 'true') throw new Error('the cron test needs root and unshare -m (a private mount namespace)');
  return 'the cron test needs root and unshare -m (a private mount namespace)';
}

describe('cron', { skip: cronCannotRun() }, () => {
  test('a job it ran, as it logged it through syslog, is searched by user, action and command', async () => {
    const from = Date.now() - 60_000;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-cron-'));
    fs.writeFileSync(path.join(dir, 'ns.sh'), CRON_NAMESPACE);
    const messages: string[] = [];
    const receiver = spawn('python3', ['-c', SYSLOG_RECEIVER, path.join(dir, 'log.sock')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let cron: ChildProcess | undefined;
    try {
      let buffered = '';
      const ready = new Promise<void>((resolve) => {
        receiver.stdout!.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) {
            if (line === 'ready') resolve();
            else if (line) messages.push(line);
          }
        });
      });
      await ready;
      cron = spawn('unshare', ['-m', 'bash', path.join(dir, 'ns.sh'), dir], { stdio: 'inherit' });
      for (let tries = 0; !messages.some((message) => message.includes('CMD (echo logstead-cron-job)')); tries++) {
        if (tries > 100) throw new Error(`cron logged:\n${messages.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await send(messages.map((line) => ({ line, app: 'syslog' })));
      const [job] = await search('command:"echo logstead-cron-job"', from);
      assert.equal(job?._logtype, 'cron', messages.join('\n'));
      assert.equal(job._app, 'CRON');
      assert.equal(job._user, 'root', 'user is a reserved name, stored as _user');
      assert.equal(job.action, 'CMD');
      assert.equal(job.facility, 'cron');
      const [started] = await search('detail:"Running @reboot jobs"', from);
      assert.equal(started._logtype, 'cron');
      assert.equal(started._app, 'cron');
    } finally {
      if (cron && cron.exitCode === null) {
        const exited = new Promise((resolve) => cron!.once('exit', resolve));
        cron.kill();
        await exited;
      }
      receiver.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
