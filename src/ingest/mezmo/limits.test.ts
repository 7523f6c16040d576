import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../../accounts/accounts.js';
import { compileQuery } from '../../query/compile.js';
import { type TestServer, jsonLines, request, startTestServer } from '../../testing/harness.js';

let server: TestServer;

before(async () => {
  server = await startTestServer({ LOGSTEAD_MAX_META_FIELDS_PER_DAY: '3' });
});
after(() => server.close());

let counter = 0;
const marker = () => `limit${Date.now().toString(36)}x${counter++}`;

function ingest(query: string, body: unknown, key = server.org.ingestionKey) {
  return request(`${server.url}/logs/ingest?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apikey: key },
    body: JSON.stringify(body),
  });
}

async function exported(word: string, serviceKey = server.org.serviceKey): Promise<any[]> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 86_400_000}&prefer=head&query=${word}`, {
    headers: { servicekey: serviceKey },
  });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

describe('labels are bounded', () => {
  test('every per-line label is cut to its limit and the line is still stored', async () => {
    const word = marker();
    const huge = 'x'.repeat(1024 * 1024);
    const reply = await ingest('hostname=h', {
      lines: [
        {
          line: word,
          env: `e${huge}`,
          file: `/var/log/${huge}`,
          host: `h${huge}`,
          app: `a${huge}`,
          level: `l${huge}`,
          pid: `p${huge}`,
          containerid: `c${huge}`,
          prival: { nested: huge },
          label: { app: 'web', big: huge, tier: 'front' },
          annotation: 'not a map',
        },
        { line: `${word} derived`, f: `/var/log/${'n'.repeat(900)}` },
      ],
    });
    assert.equal(reply.status, 200, reply.text);
    const [line, derived] = await exported(word);
    assert.equal(derived._app, 'n'.repeat(512), 'an app taken from a long file name is cut too');
    assert.equal(line.env.length, 80);
    assert.equal(line._file.length, 1024);
    assert.ok(line._file.startsWith('/var/log/xxx'));
    assert.equal(line._host.length, 256);
    assert.equal(line._app.length, 512);
    assert.equal(line.level.length, 80);
    assert.equal(line.pid.length, 256);
    assert.equal(line.containerid.length, 256);
    assert.equal(line.prival, undefined, 'an object where a scalar belongs is dropped');
    assert.deepEqual(line.label, { app: 'web', tier: 'front' }, 'an entry too big for the map is left out, the others kept');
    assert.equal(line.annotation, undefined);
  });

  test('label and annotation maps keep at most 16 KB of entries each', async () => {
    const word = marker();
    const annotation = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, 'v'.repeat(1000)]));
    const reply = await ingest('hostname=h', { lines: [{ line: word, annotation }] });
    assert.equal(reply.status, 200, reply.text);
    const [line] = await exported(word);
    const kept = Object.keys(line.annotation);
    assert.ok(kept.length > 10 && kept.length < 17, `${kept.length} entries kept`);
    assert.deepEqual(kept, Object.keys(annotation).slice(0, kept.length), 'the first entries are the ones kept');
    assert.ok(Buffer.byteLength(JSON.stringify(line.annotation)) <= 16 * 1024);
  });

  test('at most 32 distinct tags per request; more are refused and nothing is stored', async () => {
    const word = marker();
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag${i}`).join(',');
    const refused = await ingest(`hostname=h&tags=${tags(33)}`, { lines: [{ line: `refused ${word}` }] });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.code, 'BadRequest');
    const accepted = await ingest(`hostname=h&tags=${tags(32)}`, { lines: [{ line: `accepted ${word}` }] });
    assert.equal(accepted.status, 200, accepted.text);
    const lines = await exported(word);
    assert.deepEqual(lines.map((line) => line._line), [`accepted ${word}`]);
    assert.equal(lines[0].tags.length, 32);
  });
});

describe('what a request stores is bounded', () => {
  test('10 MB of tiny lines that would each repeat a long hostname and 32 tags get 413, not a 500', async () => {
    const word = marker();
    const tags = Array.from({ length: 32 }, (_, i) => `t${i}`.padEnd(80, 'g')).join(',');
    const tiny = `{"line":"${word}"},`;
    const body = `{"lines":[${tiny.repeat(Math.floor((10 * 1024 * 1024 - 100) / tiny.length))}{"line":"${word}"}]}`;
    const reply = await request(`${server.url}/logs/ingest?hostname=${'h'.repeat(256)}&tags=${tags}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: server.org.ingestionKey },
      body,
    });
    assert.equal(reply.status, 413, reply.text);
    assert.equal(reply.json.code, 'PayloadTooLarge');
    assert.match(reply.json.error, /send fewer lines per request/);
    assert.equal((await exported(word)).length, 0);
  });
});

describe('new meta fields per organisation per day (LOGSTEAD_MAX_META_FIELDS_PER_DAY=3)', () => {
  let org: NewAccount;

  async function metaIndexed(word: string): Promise<Array<[string, boolean]>> {
    const rows: Array<[string, boolean]> = [];
    for await (const chunk of server.running.store.read(
      { account: org.account, fromMs: 0, toMs: Date.now() + 86_400_000, condition: compileQuery(word, null) },
      { prefer: 'head', limit: 100, chronological: true },
    )) {
      rows.push(...chunk.map((row): [string, boolean] => [row.line.split(' ')[0], row.meta_indexed]));
    }
    return rows;
  }

  const metaFields = () => request(`${server.url}/v1/config/meta-fields`, { headers: { servicekey: org.serviceKey } });

  before(async () => {
    org = await server.createOrg('meta-cap');
  });

  test('past the cap lines are stored with meta as text, the response warns, and the config API shows the count', async () => {
    const word = marker();
    const first = await ingest('hostname=h', { lines: [{ line: `first ${word}`, meta: { a: 1, b: 2 } }] }, org.ingestionKey);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(Object.keys(first.json).sort(), ['batchID', 'status'], 'no warnings within the cap');

    const reply = await ingest(
      'hostname=h',
      {
        lines: [
          { line: `over ${word}`, meta: { c: 1, d: 2 } }, // two new fields: 4 > 3
          { line: `known ${word}`, meta: { a: 5 } },
          { line: `third ${word}`, meta: { c: 'text' } }, // one new field: exactly 3
          { line: `late ${word}`, meta: { e: true } },
        ],
      },
      org.ingestionKey,
    );
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.status, 'ok');
    assert.equal(reply.json.warnings.length, 1);
    assert.match(reply.json.warnings[0], /3 new meta fields for today.*2 line\(s\)/);

    assert.deepEqual(await metaIndexed(word), [
      ['first', true],
      ['over', false],
      ['known', true],
      ['third', true],
      ['late', false],
    ]);
    const over = (await exported(word, org.serviceKey)).find((line) => line._line.startsWith('over'));
    assert.deepEqual(over.meta, { c: 1, d: 2 }, 'the meta is kept for display');

    const fields = await metaFields();
    assert.equal(fields.status, 200, fields.text);
    assert.equal(fields.json.day, new Date().toISOString().slice(0, 10));
    assert.equal(fields.json.limitPerDay, 3);
    assert.equal(fields.json.addedToday, 3);
    assert.equal(fields.json.remainingToday, 0);
    assert.deepEqual(
      fields.json.fields.map((field: any) => [field.path, field.type, field.firstIndexed]),
      [['a', 'number', fields.json.day], ['b', 'number', fields.json.day], ['c', 'string', fields.json.day]],
    );
  });

  test('the count survives a restart', async () => {
    await server.restart();
    const word = marker();
    const reply = await ingest('hostname=h', { lines: [{ line: `after ${word}`, meta: { f: 1 } }, { line: `old ${word}`, meta: { b: 3 } }] }, org.ingestionKey);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.warnings.length, 1);
    assert.deepEqual(await metaIndexed(word), [['after', false], ['old', true]]);
    assert.equal((await metaFields()).json.addedToday, 3);
  });

  test('the meta-fields endpoint needs a service key', async () => {
    const reply = await request(`${server.url}/v1/config/meta-fields`, { headers: { servicekey: org.ingestionKey } });
    assert.equal(reply.status, 401);
  });
});
