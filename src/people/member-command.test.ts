import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { testConfigEnv } from '../testing/config-database.js';
import { type Reply, type TestServer, request, startTestServer } from '../testing/harness.js';
import { BIN } from '../testing/process.js';

/**
 * `logstead member add` and `logstead member reset-link`, run as operators run them (the real
 * command, against the running server's configuration), for a server without a mail server: the
 * printed link is the one the e-mail would carry, and it works once.
 */

const execFileAsync = promisify(execFile);

let server: TestServer;
let configEnv: Record<string, string>;
before(async () => {
  server = await startTestServer();
  configEnv = await testConfigEnv(server.dataDir);
});
after(() => server?.close());

function cli(...args: string[]) {
  return cliWith({ LOGSTEAD_PUBLIC_URL: server.url }, ...args);
}

/** The command with `env` over the server's data directory and configuration. */
function cliWith(env: Record<string, string>, ...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: commandEnv(env), encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The test's environment without the LOGSTEAD_PUBLIC_URL and LOGSTEAD_PORT it may have, then `env`. */
function commandEnv(env: Record<string, string>) {
  const { LOGSTEAD_PUBLIC_URL: _url, LOGSTEAD_PORT: _port, ...inherited } = process.env;
  return { ...inherited, LOGSTEAD_DATA_DIR: server.dataDir, ...configEnv, ...env };
}

/**
 * The command run without blocking this process: it asks the server, which runs in this process,
 * over the control socket, so the event loop must keep turning (spawnSync would wait forever).
 */
async function cliAsking(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], { env: commandEnv(env), encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    return { code: failed.code ?? 1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs a command that must succeed and print one JSON object. */
function printed(...args: string[]) {
  const result = cli(...args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  assert.equal(result.stdout.trim().split('\n').length, 1, 'one line of JSON');
  return JSON.parse(result.stdout);
}

const post = (path: string, body: unknown): Promise<Reply> =>
  request(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const tokenOf = (link: string) => {
  const url = new URL(link);
  assert.equal(`${url.origin}${url.pathname}`, `${server.url}/password`, 'the link is {LOGSTEAD_PUBLIC_URL}/password');
  return url.searchParams.get('token')!;
};
const cookieOf = (reply: Reply) => (reply.headers.get('set-cookie') ?? '').split(';')[0];
const sessionOf = async (cookie: string) => request(`${server.url}/api/session`, { headers: { cookie } });

test('member add prints the member and a one-time link that sets a password and signs in, once', async () => {
  const added = printed('member', 'add', server.org.account, 'Olga@Example.com', '--role', 'admin');
  assert.deepEqual(Object.keys(added).sort(), ['account', 'email', 'link', 'role']);
  assert.deepEqual([added.account, added.email, added.role], [server.org.account, 'olga@example.com', 'admin']);
  const page = await request(`${server.url}/password?token=${encodeURIComponent(tokenOf(added.link))}`);
  assert.equal(page.status, 200);

  const chosen = await post('/api/password', { token: tokenOf(added.link), password: 'olga picked this' });
  assert.equal(chosen.status, 200, chosen.text);
  assert.deepEqual([chosen.json.email, chosen.json.role, chosen.json.account], ['olga@example.com', 'admin', server.org.account]);
  assert.equal((await request(`${server.url}/v1/config/members`, { headers: { cookie: cookieOf(chosen) } })).status, 200, 'an admin reaches the members API');
  assert.equal((await post('/api/password', { token: tokenOf(added.link), password: 'someone else now' })).status, 410, 'the link works once');
  assert.equal((await post('/api/session', { email: 'olga@example.com', password: 'olga picked this' })).status, 200);

  // The change is in the audit trail, by the operator.
  const audit = await request(`${server.url}/v1/config/audit?resource=member&actor=${encodeURIComponent('operator (command line)')}`, { headers: { servicekey: server.org.serviceKey } });
  const record = audit.json.records.find((found: { id: string }) => found.id === 'olga@example.com');
  assert.ok(record, audit.text);
  assert.deepEqual([record.action, record.address, record.after.role], ['member.create', '', 'admin']);
});

test('member add may grant owner, and on an existing member changes the role, ends their sessions and prints a new link', async () => {
  const owner = printed('member', 'add', server.org.account, 'pia@example.com', '--role', 'OWNER');
  assert.equal(owner.role, 'owner');
  const signedIn = await post('/api/password', { token: tokenOf(owner.link), password: 'pia the owner' });
  assert.equal(signedIn.status, 200, signedIn.text);
  assert.equal(signedIn.json.role, 'owner');
  const members = await request(`${server.url}/v1/config/members/pia@example.com`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(members.json.role, 'owner');

  // Another owner first: the last owner keeps the role (next test).
  printed('member', 'add', server.org.account, 'rex@example.com', '--role', 'owner');
  const changed = printed('member', 'add', server.org.account, 'Pia@example.com', '--role', 'readonly');
  assert.equal(changed.role, 'readonly');
  assert.equal((await sessionOf(cookieOf(signedIn))).status, 401, "the member's sessions ended with the change of role");
  const again = await post('/api/password', { token: tokenOf(changed.link), password: 'pia, readonly now' });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.role, 'readonly');
  assert.equal((await post('/api/session', { email: 'pia@example.com', password: 'pia the owner' })).status, 401, 'the link set a new password');
});

test('the last owner keeps the role, on the command line too', async () => {
  const org = printed('org', 'create', 'one owner');
  printed('member', 'add', org.account, 'solo@example.com', '--role', 'owner');
  const result = cli('member', 'add', org.account, 'solo@example.com', '--role', 'admin');
  assert.equal(result.code, 1);
  assert.match(result.stderr, /owner/);
  const reply = await request(`${server.url}/v1/config/members/solo@example.com`, { headers: { servicekey: org.serviceKey } });
  assert.equal(reply.json.role, 'owner');
});

test('member reset-link prints a link that sets a new password; --account chooses among organisations', async () => {
  const quinn = await server.signInAs('quinn@example.com', 'member');
  const reset = printed('member', 'reset-link', 'QUINN@example.com');
  assert.deepEqual([reset.account, reset.email], [server.org.account, 'quinn@example.com']);
  const chosen = await post('/api/password', { token: tokenOf(reset.link), password: 'quinn starts over' });
  assert.equal(chosen.status, 200, chosen.text);
  assert.equal((await sessionOf(quinn.cookie)).status, 401, 'the old session ended');
  assert.equal((await post('/api/session', { email: quinn.email, password: quinn.password })).status, 401, 'the old password is gone');
  assert.equal((await post('/api/session', { email: quinn.email, password: 'quinn starts over' })).status, 200);
  assert.equal((await post('/api/password', { token: tokenOf(reset.link), password: 'once more please' })).status, 410);

  const other = printed('org', 'create', 'quinn elsewhere');
  printed('member', 'add', other.account, 'quinn@example.com', '--role', 'readonly');
  const ambiguous = cli('member', 'reset-link', 'quinn@example.com');
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /several organisations.*--account/);
  const chosenOrg = printed('member', 'reset-link', 'quinn@example.com', '--account', other.account);
  assert.equal(chosenOrg.account, other.account);
  const there = await post('/api/password', { token: tokenOf(chosenOrg.link), password: 'quinn in the other one' });
  assert.equal(there.status, 200, there.text);
  assert.deepEqual([there.json.account, there.json.role], [other.account, 'readonly']);
});

test("without LOGSTEAD_PUBLIC_URL, the link has the running server's address (not the default port), and the command says so", async () => {
  // The test server listens on a free port, not the default 8080; this command's environment names no port.
  assert.notEqual(new URL(server.url).port, '8080');
  const added = await cliAsking({}, 'member', 'add', server.org.account, 'port.check@example.com', '--role', 'member');
  assert.equal(added.code, 0, added.stderr);
  const { link } = JSON.parse(added.stdout);
  assert.equal(new URL(link).origin, new URL(server.url).origin);
  assert.match(added.stderr, new RegExp(`The link's address, ${server.url}, is from the running server`));
  const chosen = await post('/api/password', { token: tokenOf(link), password: 'the port was right' });
  assert.equal(chosen.status, 200, chosen.text);

  const reset = await cliAsking({ LOGSTEAD_PORT: '8080' }, 'member', 'reset-link', 'port.check@example.com');
  assert.equal(reset.code, 0, reset.stderr);
  assert.equal(new URL(JSON.parse(reset.stdout).link).origin, new URL(server.url).origin, "the server's address wins over this command's LOGSTEAD_PORT");

  // LOGSTEAD_PUBLIC_URL given to the command is used as it is, and named.
  const named = cliWith({ LOGSTEAD_PUBLIC_URL: 'https://logs.example.com' }, 'member', 'reset-link', 'port.check@example.com');
  assert.equal(named.code, 0, named.stderr);
  assert.ok(JSON.parse(named.stdout).link.startsWith('https://logs.example.com/password?token='));
  assert.match(named.stderr, /is from LOGSTEAD_PUBLIC_URL/);

  // No server on a data directory: the address the settings would listen on, said as such.
  const stopped = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-no-server-'));
  try {
    const alone = spawnSync(process.execPath, [BIN, 'member', 'reset-link', 'nobody@example.com'], {
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LOGSTEAD_'))), LOGSTEAD_DATA_DIR: stopped, LOGSTEAD_PORT: '7099' },
      encoding: 'utf8',
    });
    assert.match(alone.stderr, /The link's address, http:\/\/127\.0\.0\.1:7099, is from LOGSTEAD_HOST and LOGSTEAD_PORT \(no server answered\)/);
  } finally {
    fs.rmSync(stopped, { recursive: true, force: true });
  }
});

test('mistakes get a message and a non-zero exit', () => {
  const cases: Array<[string[], RegExp]> = [
    [['member', 'add', server.org.account, 'x@example.com'], /Usage: logstead member add/],
    [['member', 'add', server.org.account, 'x@example.com', '--role', 'superuser'], /--role must be one of owner, admin, member, readonly/],
    [['member', 'add', server.org.account, 'not-an-address', '--role', 'member'], /is not an e-mail address/],
    [['member', 'add', 'nope', 'x@example.com', '--role', 'member'], /No organisation/],
    [['member', 'reset-link', 'nobody@example.com'], /No member has the e-mail "nobody@example.com"/],
    [['member', 'reset-link'], /Usage: logstead member reset-link/],
    [['member', 'remove', 'x@example.com'], /Usage/],
  ];
  for (const [args, message] of cases) {
    const result = cli(...args);
    assert.equal(result.code, 1, args.join(' '));
    assert.match(result.stderr, message, args.join(' '));
  }
});
