import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';

let clock = Date.now();
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
const base = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;

before(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_EXPORT_LINK_HOURS: '24' }, { now: () => clock });
  const lines = Array.from({ length: 500 }, (_, i) => ({ line: `order ${i} ${i % 5 === 0 ? 'refunded' : 'paid'}`, timestamp: base + i * 1000, app: 'shop' }));
  const reply = await request(`${server.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200);
});
after(async () => {
  await server.close();
  await smtp.close();
});

const params = `from=${base}&to=${base + 600_000}&query=refunded&prefer=head`;
const exportV1 = (extra: string) => request(`${server.url}/v1/export?${params}${extra}`, { headers: { servicekey: server.org.serviceKey } });

test('with email, export answers at once and mails a signed link to exactly the matching lines, attached too', async () => {
  const reply = await exportV1('&email=analyst@example.com&emailSubject=Refunds%20today');
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.status, 'ok');
  const mail = await eventually(() => smtp.messages.find((m) => m.subject === 'Refunds today'), 10_000, 'the export e-mail');
  assert.match(mail.text ?? '', /100 lines/);
  const link = /(http:\/\/\S+\/v1\/export\/download\/\S+)/.exec(mail.text ?? '')![1];

  const expected = jsonLines((await exportV1('')).text);
  assert.equal(expected.length, 100);
  const download = await fetch(link);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-type'), 'application/gzip');
  const downloaded = jsonLines(zlib.gunzipSync(Buffer.from(await download.arrayBuffer())).toString());
  assert.deepEqual(downloaded, expected);

  assert.equal(mail.attachments.length, 1);
  assert.match(mail.attachments[0].filename ?? '', /\.jsonl\.gz$/);
  assert.deepEqual(jsonLines(zlib.gunzipSync(mail.attachments[0].content).toString()), expected);
});

test('a tampered link is refused and an expired one is gone', async () => {
  const reply = await exportV1('&email=analyst@example.com&emailSubject=Tamper');
  assert.equal(reply.status, 200);
  const mail = await eventually(() => smtp.messages.find((m) => m.subject === 'Tamper'), 10_000);
  const link = new URL(/(http:\/\/\S+\/v1\/export\/download\/\S+)/.exec(mail.text ?? '')![1]);

  const later = new URL(link);
  later.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 86_400_000));
  assert.equal((await fetch(later)).status, 403, 'a longer expiry needs a new signature');
  const forged = new URL(link);
  forged.searchParams.set('signature', 'A'.repeat(43));
  assert.equal((await fetch(forged)).status, 403);
  const otherFile = new URL(link);
  otherFile.pathname = otherFile.pathname.replace(/[0-9a-f]{8}-/, '00000000-');
  assert.equal((await fetch(otherFile)).status, 403);

  clock += 25 * 3_600_000;
  const expired = await fetch(link);
  assert.equal(expired.status, 410);
  clock -= 25 * 3_600_000;
  assert.equal((await fetch(link)).status, 200, 'valid again before expiry: nothing else changed');
});

test('a bad address gets 400, and v2 never sends e-mail', async () => {
  const bad = await exportV1('&email=not-an-address');
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /e-mail address/);
  const v2 = await request(`${server.url}/v2/export?${params}&email=analyst@example.com`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(v2.status, 400);
});

test('with the viewer session, an export by e-mail needs the CSRF token; a download does not', async () => {
  const signIn = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: server.org.serviceKey }) });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const url = `${server.url}/v1/export?${params}&email=analyst@example.com&emailSubject=`;
  const sent = smtp.messages.length;

  const forged = await request(`${url}Forged`, { headers: { cookie } });
  assert.equal(forged.status, 403);
  assert.match(forged.json.error, /x-csrf-token/);
  assert.equal((await request(`${url}Forged`, { headers: { cookie, 'x-csrf-token': 'guess' } })).status, 403);

  const withToken = await request(`${url}From%20the%20viewer`, { headers: { cookie, 'x-csrf-token': signIn.json.csrfToken } });
  assert.equal(withToken.status, 200, withToken.text);
  await eventually(() => smtp.messages.find((m) => m.subject === 'From the viewer'), 10_000, 'the export e-mail');
  assert.equal(smtp.messages.length, sent + 1, 'the refused requests sent nothing');

  const download = await request(`${server.url}/v1/export?${params}`, { headers: { cookie } });
  assert.equal(download.status, 200);
  assert.equal(jsonLines(download.text).length, 100);
});
