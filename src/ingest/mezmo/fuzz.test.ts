import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toMillis } from '../timestamps.js';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { serveProcess } from '../../testing/process.js';

/**
 * Property-based checks of the public write and read paths with hostile input: random and mutated
 * bodies, headers and query strings. Whatever arrives, nothing answers 5xx, the server stays up,
 * and every line it acknowledged (200) exports back exactly as sent: well-formed (lone surrogates
 * and invalid UTF-8 become U+FFFD) and cut to 16 KB, as the README documents; a refused request
 * stores nothing. Runs are seeded: a failure prints the seed and path to replay it
 * (LOGSTEAD_FUZZ_SEED).
 */

const SEED = Number(process.env.LOGSTEAD_FUZZ_SEED ?? 20261124);
const LINE_BYTES = 16 * 1024;

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

/** A raw HTTP request: repeated headers, any bytes in the body, the query string as given. */
function send(request: Sent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const outgoing = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * Percent-encodes a query value byte by byte (a lone surrogate is sent as its UTF-8 replacement),
 * leaving any "%" as it is so that malformed escapes such as "%zz" and invalid UTF-8 such as
 * "%ff" reach the server.
 */
function pct(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) out += /[\w.~%-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  return out;
}

/** The 16 KB cut as documented: at most 16384 bytes of UTF-8, never half a character. */
function cutTo16Kb(text: string): string {
  let bytes = 0;
  let out = '';
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > LINE_BYTES) break;
    out += char;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Values

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\uD800', 'a\uDFFFb', '\u2028\u2029', '\uFEFF', '😀', 'é\u0301', '%zz', '%00', '\\', '"', '<script>', '${x}', '\r\n'),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ minLength: 300, maxLength: 2000 }),
);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), oddText, fc.constantFrom(null, true, 0, -1, 1e308, [], {}));
/** Deeper than any limit, as an object or an array. */
const deep = fc.integer({ min: 60, max: 400 }).chain((depth) =>
  fc.constantFrom('[', '{"a":').map((open) => JSON.parse(open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth))),
);

/** One line as a client might send it, with its marker at the start of the text. */
const lineObject = fc.record(
  {
    text: fc.oneof({ weight: 5, arbitrary: oddText }, { weight: 1, arbitrary: fc.string({ minLength: 16_000, maxLength: 20_000 }) }, { weight: 1, arbitrary: fc.constantFrom('é'.repeat(9000), '😀'.repeat(5000)) }),
    app: oddText,
    level: oddText,
    timestamp: fc.oneof(fc.constant(undefined), fc.integer(), fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), oddText),
    meta: fc.oneof(fc.constant(undefined), anyJson, deep, fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 5 })),
    env: fc.oneof(fc.constant(undefined), anyJson),
    file: fc.oneof(fc.constant(undefined), oddText),
  },
  { requiredKeys: ['text'] },
);

type Mutation =
  | { kind: 'none' }
  | { kind: 'retype'; field: string; value: unknown }
  | { kind: 'junk'; value: unknown }
  | { kind: 'bytes'; at: number; bytes: number[] }
  | { kind: 'cut'; at: number }
  | { kind: 'duplicate' }
  | { kind: 'envelope' }
  | { kind: 'random'; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retype' as const), field: fc.constantFrom('lines', 'line', 'app', 'level', 'meta', 'timestamp', 'hostname', 'apikey', 'tags', 'ls'), value: fc.oneof(anyJson, deep) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('junk' as const), value: fc.oneof(anyJson, deep) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bytes' as const), at: fc.nat(), bytes: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'duplicate' }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'envelope' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 300 }) }) },
);

type Auth = 'header' | 'query' | 'basicUser' | 'basicPassword' | 'bearer' | 'body' | 'headerTwice' | 'none' | 'wrong' | 'serviceKey' | 'twoKeys' | 'garbage';
const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Auth>('header', 'query', 'basicUser', 'basicPassword', 'bearer', 'body', 'headerTwice') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('none', 'wrong', 'serviceKey', 'twoKeys', 'garbage') },
);

const encoding = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('', 'identity', 'gzip', 'deflate', 'x-gzip', ' GZIP ') },
  { weight: 1, arbitrary: fc.constantFrom('br', 'gzip, gzip', 'compress', 'gzip-garbage', 'gzip-truncated') },
);
const contentType = fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '*/*', ';;;', 'application/json; charset=latin1');

const queryValue = fc.oneof(oddText, fc.constantFrom('192.168.0.1', '::1', '999.1.1.1', 'aa:bb:cc:dd:ee:ff', 'zz:zz', '1700000000', '1700000000000', '-1', '1e400', 'NaN', '%ff%fe', '%', 'a%2Cb,,c'));
const extraParams = fc.array(fc.tuple(fc.constantFrom('hostname', 'tags', 'now', 'ip', 'mac', 'apikey', 'account', 'x'), queryValue), { maxLength: 4 });

const ingestCase = fc.record({
  lines: fc.array(lineObject, { minLength: 1, maxLength: 4 }),
  mutation,
  auth,
  encoding,
  contentType,
  hostname: fc.oneof({ weight: 5, arbitrary: fc.constant('fuzz-host') }, { weight: 1, arbitrary: queryValue }),
  extra: fc.oneof({ weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) }, { weight: 1, arbitrary: extraParams }),
});

const UNPARSABLE_TYPE = ';;;';

// ---------------------------------------------------------------------------------------------
// Building the request

let requestNumber = 0;
const marker = (request: number, line: number) => `FZ${request}L${line}Z `;
const MARKER = /^FZ(\d+)L(\d+)Z /;

function setField(body: Record<string, any>, field: string, value: unknown) {
  if (field === 'lines' || field === 'hostname' || field === 'apikey' || field === 'tags' || field === 'ls') body[field] = value;
  else if (Array.isArray(body.lines) && body.lines.length) body.lines[body.lines.length - 1][field] = value;
}

type IngestCase = typeof ingestCase extends fc.Arbitrary<infer T> ? T : never;

function build(input: IngestCase) {
  const number = ++requestNumber;
  const body: Record<string, any> = {
    lines: input.lines.map((line, index) => {
      const { text, ...rest } = line;
      return { line: marker(number, index) + text, ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) };
    }),
  };
  const { mutation: change } = input;
  if (change.kind === 'retype') setField(body, change.field, change.value);
  if (change.kind === 'junk') body[`junk${number}`] = change.value;
  if (input.auth === 'body') body.apikey = server.org.ingestionKey;
  let text = change.kind === 'envelope' ? JSON.stringify({ e: 'ls', ls: body.lines, apikey: body.apikey }) : JSON.stringify(body);
  if (change.kind === 'duplicate') text = `{"lines":[{"line":"FZ${number}L99Z shadowed"}],${text.slice(1)}`;
  let payload = Buffer.from(text, 'utf8');
  if (change.kind === 'bytes') {
    const at = change.at % (payload.length + 1);
    payload = Buffer.concat([payload.subarray(0, at), Buffer.from(change.bytes), payload.subarray(at)]);
  }
  if (change.kind === 'cut') payload = payload.subarray(0, change.at % (payload.length + 1));
  if (change.kind === 'random') payload = Buffer.from(change.bytes);

  const headers: Record<string, string | string[]> = {};
  const params: Array<[string, string]> = [['hostname', input.hostname], ...input.extra];
  const key = server.org.ingestionKey;
  switch (input.auth) {
    case 'header': headers.apikey = key; break;
    case 'query': params.push(['apikey', key]); break;
    case 'basicUser': headers.authorization = basic(key); break;
    case 'basicPassword': headers.authorization = basic('username', key); break;
    case 'bearer': headers.authorization = `Bearer ${key}`; break;
    case 'headerTwice': headers.apikey = [key, key]; break;
    case 'wrong': headers.apikey = 'f'.repeat(32); break;
    case 'serviceKey': headers.apikey = server.org.serviceKey; break;
    case 'twoKeys': headers.apikey = [key, server.org.serviceKey]; break;
    case 'garbage': headers.authorization = 'Basic !!!not-base64'; break;
  }
  let sentBody = payload;
  const encodingName = input.encoding.trim().toLowerCase();
  if (encodingName === 'gzip' || encodingName === 'x-gzip') sentBody = zlib.gzipSync(payload);
  if (encodingName === 'deflate') sentBody = zlib.deflateSync(payload);
  if (input.encoding === 'gzip-garbage') sentBody = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0]), payload]);
  if (input.encoding === 'gzip-truncated') sentBody = zlib.gzipSync(payload).subarray(0, 12);
  if (input.encoding !== '') headers['content-encoding'] = input.encoding.startsWith('gzip-') ? 'gzip' : input.encoding;
  if (input.contentType !== undefined) headers['content-type'] = input.contentType;
  const query = params.map(([name, value]) => `${name}=${pct(value)}`).join('&');
  return { number, payload, sent: { method: 'POST', path: `/logs/ingest?${query}`, headers, body: sentBody } };
}

/** The default retention (LOGSTEAD_RETENTION_DAYS): older lines are acknowledged and not kept. */
const RETENTION_MS = 30 * 86_400_000;

/**
 * The lines a body holds as the server must read it: JSON of the bytes decoded as UTF-8. A line may
 * be left out when its time is past the retention: its own timestamp is older, or the request's
 * `now` moves it there (a client clock years ahead makes every line look that old).
 */
function expectedLines(payload: Buffer, path: string): { kept: Map<string, string>; mayBeDropped: Set<string> } {
  const kept = new Map<string, string>();
  const mayBeDropped = new Set<string>();
  const body = JSON.parse(payload.toString('utf8'));
  const correctedByNow = /[?&]now=/.test(path);
  for (const line of body.lines ?? body.ls ?? []) {
    const raw = line?.line ?? line?.l;
    if (typeof raw !== 'string') continue;
    const found = MARKER.exec(raw);
    if (!found) continue;
    const key = `${found[1]}:${found[2]}`;
    kept.set(key, cutTo16Kb(raw.toWellFormed()));
    const sentAt = toMillis(line?.timestamp ?? line?.t);
    if (correctedByNow || (sentAt !== null && sentAt < Date.now() - RETENTION_MS + 60_000)) mayBeDropped.add(key);
  }
  return { kept, mayBeDropped };
}

// ---------------------------------------------------------------------------------------------

test(`POST /logs/ingest: no 5xx, and acknowledged lines export back unchanged (seed ${SEED})`, async () => {
  const acknowledged = new Map<string, string>();
  const mayBeDropped = new Set<string>();
  const refused = new Set<number>();
  const accepted = new Set<number>();
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(ingestCase, async (input) => {
      const { number, payload, sent } = build(input);
      const reply = await send(sent);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      assert.ok(reply.status < 500, `answered ${reply.status}: ${reply.text}`);
      assert.ok(JSON.parse(reply.text), 'every answer is a JSON body');
      if (reply.status === 200) {
        accepted.add(number);
        const lines = expectedLines(payload, sent.path);
        for (const [key, line] of lines.kept) acknowledged.set(key, line);
        for (const key of lines.mayBeDropped) mayBeDropped.add(key);
      } else {
        refused.add(number);
      }
    }),
    { numRuns: 200, seed: SEED, endOnFailure: true },
  );
  assert.ok((statuses.get(200) ?? 0) >= 40, `enough requests were accepted to test what is stored: ${JSON.stringify([...statuses])}`);

  assert.equal((await request(`${server.url}/healthz`)).status, 200, 'the server is still up');
  const exported = jsonLines(
    (await request(`${server.url}/v1/export?from=0&to=253402300799999&size=10000&prefer=head`, { headers: { servicekey: server.org.serviceKey } })).text,
  );
  const stored = new Map<string, string>();
  for (const record of exported) {
    const found = MARKER.exec(record._line);
    if (!found) continue;
    assert.ok(!refused.has(Number(found[1])), `a refused request stored a line: ${record._line.slice(0, 80)}`);
    const key = `${found[1]}:${found[2]}`;
    if (accepted.has(Number(found[1]))) assert.ok(acknowledged.has(key), `a line the request did not hold was stored: ${record._line.slice(0, 80)}`);
    stored.set(key, record._line);
  }
  for (const [key, line] of acknowledged) {
    if (!stored.has(key) && mayBeDropped.has(key)) continue; // acknowledged, and past the retention
    assert.ok(stored.has(key), `acknowledged line ${key} is missing`);
    assert.equal(stored.get(key), line, `acknowledged line ${key} changed`);
  }
});

const exportParam = fc.tuple(
  fc.constantFrom('from', 'to', 'size', 'prefer', 'query', 'q', 'hosts', 'apps', 'levels', 'tags', 'pagination_id', 'email', 'emailSubject', 'account', 'servicekey'),
  fc.oneof(
    queryValue,
    fc.constantFrom('0', '253402300799', '253402300800000', '99999999999999999999', 'head', 'tail', 'HEAD', 'level:error', 'a OR', '(', '"', 'field:>', '-', '*', 'a AND NOT (b OR "c d")', 'eyJwIjoiYSJ9', 'x@y.z'),
  ),
);
const exportQuery = fc.tuple(fc.nat(100), fc.array(exportParam, { maxLength: 7 })).map(([roll, pairs]) => {
  // Most queries carry a valid window, so the filters behind it are reached too.
  const window: Array<[string, string]> = roll < 70 ? [['from', '0'], ['to', '253402300799999']] : [];
  return [...window, ...pairs].map(([name, value]) => `${name}=${pct(value)}`).join('&');
});

for (const route of ['/v1/export', '/v2/export']) {
  test(`GET ${route}: odd query strings never get a 5xx and a 200 is well formed (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(exportQuery, async (query) => {
        const reply = await send({ method: 'GET', path: `${route}?${query}`, headers: { servicekey: server.org.serviceKey } });
        assert.ok(reply.status < 500, `answered ${reply.status}: ${reply.text}`);
        if (reply.status !== 200) return;
        if (route === '/v2/export') assert.ok(Array.isArray(JSON.parse(reply.text).lines));
        else jsonLines(reply.text).forEach((record) => assert.equal(typeof record._line, 'string'));
      }),
      { numRuns: 150, seed: SEED, endOnFailure: true },
    );
    assert.equal((await request(`${server.url}/healthz`)).status, 200, 'the server is still up');
  });
}

test(
  'a corrupt gzip body under an unparsable content type does not crash the server',
  async () => {
    // A process of its own: the crash would otherwise take this test file with it.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-fuzz-'));
    const child = await serveProcess(dataDir);
    try {
      const target = new URL(child.url);
      const corrupt = zlib.gzipSync(Buffer.from('{"lines":[{"line":"x"}]}')).subarray(0, 12);
      const reply = await new Promise<number>((resolve, reject) => {
        const outgoing = http.request(
          { host: target.hostname, port: target.port, method: 'POST', path: '/logs/ingest?hostname=h', headers: { 'content-type': UNPARSABLE_TYPE, 'content-encoding': 'gzip' }, agent: false },
          (response) => resolve(response.resume().statusCode!),
        );
        outgoing.on('error', reject);
        outgoing.end(corrupt);
      });
      assert.ok(reply >= 400 && reply < 500, `a 4xx, got ${reply}`);
      // The gzip error comes when the body ends, after the answer: ask again once it has had time to.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const health = await request(`${child.url}/healthz`).catch((error: Error) => ({ status: 0, text: error.message }));
      assert.equal(health.status, 200, `the server is still up: ${child.output().slice(-500)}`);
    } finally {
      child.child.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
