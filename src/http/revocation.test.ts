import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';
import { SESSION_ENDED } from '../tail/tail-routes.js';

// Revocation reaches everything a key opened: viewer sessions, live tails and e-mailed export
// links. Keys are revoked the way the CLI does it (another connection to the configuration
// database) and over the API, so the server cannot rely on being told in-process.

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
before(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url });
});
after(async () => {
  await server.close();
  await smtp.close();
});

/** A fresh organisation with a second service key, so revoking one key leaves the organisation usable. */
async function organisation(name: string): Promise<NewAccount & { spareKey: string; spareKeyId: string }> {
  const org = await server.createOrg(name);
  const spare = await server.withAccounts((accounts) => accounts.createKey(org.account, 'service', 'spare'));
  return { ...org, spareKey: spare.key, spareKeyId: spare.id };
}

async function signIn(serviceKey: string): Promise<{ cookie: string; csrf: string }> {
  const reply = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey }) });
  assert.equal(reply.status, 200, reply.text);
  return { cookie: (reply.headers.get('set-cookie') ?? '').split(';')[0], csrf: reply.json.csrfToken };
}

/** Opens a tail and resolves with the code it is closed with (or 'open' if still open after `ms`). */
async function openTail(headers: Record<string, string>): Promise<{ closed: (ms: number) => Promise<number | 'open'>; socket: WebSocket }> {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail`, 'json', { headers });
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
  });
  const closing = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  return {
    socket,
    closed: (ms) => Promise.race([closing, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))]),
  };
}

async function emailedLink(serviceKey: string, subject: string): Promise<string> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now()}&email=ops@example.com&emailSubject=${subject}`, { headers: { servicekey: serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  const mail = await eventually(() => smtp.messages.find((message) => message.subject === subject), 10_000, 'the export e-mail');
  return /(http:\/\/\S+\/v1\/export\/download\/\S+)/.exec(mail.text ?? '')![1];
}

const viewsWith = (headers: Record<string, string>) => request(`${server.url}/v1/config/view`, { headers });

test('revoking a key (as the CLI does) ends its sessions, closes its tails and kills its export links within 5 s', async () => {
  const org = await organisation('revoke-cli');
  const session = await signIn(org.serviceKey);
  const spareSession = await signIn(org.spareKey);
  const keyTail = await openTail({ authorization: `Token ${org.serviceKey}` });
  const sessionTail = await openTail({ cookie: session.cookie });
  const spareTail = await openTail({ servicekey: org.spareKey });
  const link = await emailedLink(org.serviceKey, 'revoke-cli');
  const spareLink = await emailedLink(org.spareKey, 'revoke-cli-spare');
  assert.equal((await fetch(link)).status, 200, 'the link works before revocation');

  assert.ok(await server.withAccounts((accounts) => accounts.revokeKey(org.serviceKey)));

  assert.equal((await viewsWith({ cookie: session.cookie })).status, 401, 'the session ends at once');
  assert.equal((await fetch(link)).status, 403, 'the export link dies with its key');
  assert.equal(await keyTail.closed(5000), SESSION_ENDED, 'the tail opened with the key closes');
  assert.equal(await sessionTail.closed(5000), SESSION_ENDED, 'the tail opened with its session closes');

  // The organisation's other key, and everything it opened, is untouched.
  assert.equal((await viewsWith({ cookie: spareSession.cookie })).status, 200);
  assert.equal((await fetch(spareLink)).status, 200);
  assert.equal(await spareTail.closed(100), 'open');
  spareTail.socket.close();
});

test('revoking a key over the API ends what it opened too', async () => {
  const org = await organisation('revoke-api');
  const session = await signIn(org.serviceKey);
  const tail = await openTail({ cookie: session.cookie });
  const keyId = await server.withAccounts((accounts) => accounts.keyIdFor(org.serviceKey));
  const revoked = await request(`${server.url}/v1/config/keys/${keyId}`, { method: 'DELETE', headers: { servicekey: org.spareKey } });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal((await viewsWith({ cookie: session.cookie })).status, 401);
  assert.equal(await tail.closed(5000), SESSION_ENDED);
});

test('deactivating an organisation ends every session, tail and export link of it, and only of it', async () => {
  const org = await organisation('deactivated');
  const bystander = await organisation('bystander');
  const sessions = [await signIn(org.serviceKey), await signIn(org.spareKey)];
  const tails = [await openTail({ servicekey: org.serviceKey }), await openTail({ cookie: sessions[1].cookie })];
  const link = await emailedLink(org.spareKey, 'deactivated');
  const bystanderSession = await signIn(bystander.serviceKey);
  const bystanderTail = await openTail({ servicekey: bystander.serviceKey });

  assert.ok(await server.withAccounts((accounts) => accounts.setActive(org.account, false)));

  for (const session of sessions) assert.equal((await viewsWith({ cookie: session.cookie })).status, 401);
  assert.equal((await fetch(link)).status, 403);
  for (const tail of tails) assert.equal(await tail.closed(5000), SESSION_ENDED);
  assert.equal((await viewsWith({ cookie: bystanderSession.cookie })).status, 200);
  assert.equal(await bystanderTail.closed(100), 'open');
  bystanderTail.socket.close();

  // Reactivation brings nothing back: the sessions were signed out, and the link stays dead.
  await server.withAccounts((accounts) => accounts.setActive(org.account, true));
  assert.equal((await viewsWith({ cookie: sessions[0].cookie })).status, 401);
  assert.equal((await fetch(link)).status, 403, 'a link from before the deactivation stays dead');
  const fresh = await emailedLink(org.spareKey, 'reactivated');
  assert.equal((await fetch(fresh)).status, 200, 'a link asked for after reactivation works');
});

test('an export link cannot be moved to another key', async () => {
  const org = await organisation('link-key');
  const link = new URL(await emailedLink(org.serviceKey, 'link-key'));
  const moved = new URL(link);
  moved.searchParams.set('key', org.spareKeyId);
  assert.equal((await fetch(moved)).status, 403, 'the key is under the signature');
  const without = new URL(link);
  without.searchParams.delete('key');
  assert.equal((await fetch(without)).status, 403);
  assert.equal((await fetch(link)).status, 200);
});
