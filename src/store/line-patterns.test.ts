import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openTestExecutor } from '../testing/log-engine.js';
import type { SqlExecutor } from './executor.js';
import { MASKED_CHARACTERS } from './line-patterns.js';
import { LogStore, arrivalId } from './log-store.js';
import { encodeRows } from './row-encoding.js';
import type { StoredLine } from './types.js';

const HOUR = 1_764_000_000_000 - (1_764_000_000_000 % 3_600_000);
let next = 0;
const stored = (text: string, ts = HOUR + next * 10): StoredLine => {
  next++;
  return {
    account: 'acct', ts, id: String(BigInt(arrivalId(HOUR)) + BigInt(next * 1000)), batch_id: '1', host: 'h', app: 'a', level: 'INFO',
    env: '', file: '', ip: '', mac: '', tags: [], line: text, logtype: '', fields: '', meta: '', meta_indexed: true, meta_note: '', extra: '', size: Buffer.byteLength(text),
  };
};

let dir: string;
let executor: SqlExecutor;
let store: LogStore;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-line-patterns-'));
  executor = await openTestExecutor(dir);
  store = await LogStore.open(executor);
});
after(async () => {
  await executor.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const filter = (account: string) => ({ account, fromMs: HOUR, toMs: HOUR + 3_600_000 - 1 });
const options = { bucketMs: 600_000, maxGroups: 1000, maxCoarse: 1000 };

test('masking turns each kind of variable part into <*> and keeps the rest byte for byte', async () => {
  const cases: Array<[string, string]> = [
    ['took 12ms then 1.5s then 1h30m', 'took <*> then <*> then <*>'],
    ['from 10.0.0.1:8080 and 192.168.1.7 mac aa:bb:cc:dd:ee:ff', 'from <*> and <*> mac <*>'],
    ['id 550e8400-e29b-41d4-a716-446655440000 sha deadbeef0123 ptr 0x7fff', 'id <*> sha <*> ptr <*>'],
    ['at 2026-11-28T10:00:00.123Z or 2026-11-28 10:00:00 or 10:00:01', 'at <*> or <*> or <*>'],
    ['10.0.0.1 - - [30/Nov/2026:23:59:59 +0000] "GET / HTTP/1.1" 200 on 1/Dec/2026', '<*> - - [<*>] "GET / HTTP/<*>" <*> on <*>'],
    ['mail bob.smith@example.co.uk sent 12KB', 'mail <*> sent <*>'],
    ['msg="a b \\" c" user=\'x y\' n=42 rate 3.5', 'msg=<*> user=<*> n=<*> rate <*>'],
    ['user_42 v2 req-7 /api/v1/users', 'user_42 v2 req-<*> /api/v1/users'],
    ['{"msg":"hi 5","n":7}  two  spaces\tand tab', '{"msg":"hi <*>","n":<*>}  two  spaces\tand tab'],
  ];
  const account = 'masking';
  await store.insert(encodeRows(cases.map(([text]) => ({ ...stored(text), account }))));
  const groups = await store.patternGroups(filter(account), options);
  assert.deepEqual(groups.map((group) => group.text).sort(), cases.map(([, masked]) => masked).sort());
});

test("access log lines either side of a month's start have one masked text, so one pattern", async () => {
  const account = 'months';
  const lines = ['30/Nov/2026:23:59:59 +0000', '01/Dec/2026:00:00:01 +0000'].map((at) => ({ ...stored(`10.0.0.1 - - [${at}] "GET / HTTP/1.1" 200 512 "-" "curl/8.5" 0.004`), account }));
  await store.insert(encodeRows(lines));
  const groups = await store.patternGroups(filter(account), options);
  assert.deepEqual(groups.map((group) => [group.text, group.lines]), [['<*> - - [<*>] "GET / HTTP/<*>" <*> <*> "-" "curl/<*>" <*>', 2]]);
});

test("syslog lines either side of a month's start have one masked text, so one pattern", async () => {
  const account = 'syslog-months';
  const lines = ['Nov 30 23:59:59', 'Dec  1 00:00:01'].map((at) => ({ ...stored(`${at} web-1 sshd[412]: Accepted publickey for deploy`), account }));
  await store.insert(encodeRows(lines));
  const groups = await store.patternGroups(filter(account), options);
  assert.deepEqual(groups.map((group) => [group.text, group.lines]), [['<*> web-<*> sshd[<*>]: Accepted publickey for deploy', 2]]);
});

test('a long line is masked up to its last space within the limit, the rest one <*>', async () => {
  const account = 'long';
  const text = `${'word '.repeat(MASKED_CHARACTERS / 5 - 1)}abcdefghij tail 42`;
  await store.insert(encodeRows([{ ...stored(text), account }]));
  const [group] = await store.patternGroups(filter(account), options);
  assert.equal(group.text, `${'word '.repeat(MASKED_CHARACTERS / 5 - 1)}<*>`);
});

test('past the limits, rarer texts merge by length and first token, then by length, and every line still counts once', async () => {
  const account = 'many';
  const lines: StoredLine[] = [];
  // 3 frequent texts; then 40 rare ones under 4 first words; then 30 rare ones of 3 tokens under 30 first words.
  for (let i = 0; i < 30; i++) lines.push(stored('common text one'), stored('common text two'), stored('common text three'));
  for (let i = 0; i < 40; i++) lines.push(stored(`first${'abcd'[i % 4]} rare word${'abcdefghij'[i % 10]}x${'pqrs'[Math.floor(i / 10)]} end`));
  for (let i = 0; i < 30; i++) lines.push(stored(`w${'abcdefghijklmnopqrstuvwxyzABCD'[i]} tail end`));
  await store.insert(encodeRows(lines.map((line) => ({ ...line, account }))));
  const groups = await store.patternGroups(filter(account), { bucketMs: 600_000, maxGroups: 3, maxCoarse: 4 });
  assert.equal(groups.reduce((sum, group) => sum + group.lines, 0), lines.length);
  const byText = Object.fromEntries(groups.map((group) => [group.text, group.lines]));
  assert.deepEqual(byText, {
    'common text one': 30,
    'common text three': 30,
    'common text two': 30,
    'firsta <*> <*> <*>': 10,
    'firstb <*> <*> <*>': 10,
    'firstc <*> <*> <*>': 10,
    'firstd <*> <*> <*>': 10,
    '<*> <*> <*>': 30,
  });
  // Ordered by lines, then text.
  assert.deepEqual(groups.map((group) => group.text).slice(0, 4), ['<*> <*> <*>', 'common text one', 'common text three', 'common text two']);
  for (const group of groups) assert.equal(group.volume.reduce((sum, [, lines]) => sum + lines, 0), group.lines);
});

test('the first line of a group is its earliest, and the lines at positions come back only inside the filter', async () => {
  const account = 'positions';
  const lines = [stored('same text', HOUR + 5000), stored('same text', HOUR + 1000), stored('same text', HOUR + 3000)];
  await store.insert(encodeRows(lines.map((line) => ({ ...line, account }))));
  const [group] = await store.patternGroups(filter(account), options);
  assert.equal(group.firstMs, HOUR + 1000);
  assert.equal(group.firstId, lines[1].id);
  assert.equal(group.lastMs, HOUR + 5000);
  const found = await store.linesAt(filter(account), [{ ts: group.firstMs, id: group.firstId }]);
  assert.deepEqual([...found], [[`${HOUR + 1000}:${lines[1].id}`, 'same text']]);
  assert.equal((await store.linesAt(filter('another'), [{ ts: group.firstMs, id: group.firstId }])).size, 0);
  assert.equal((await store.linesAt({ ...filter(account), fromMs: HOUR + 2000 }, [{ ts: group.firstMs, id: group.firstId }])).size, 0);
});

test('a masked-text pattern test says which patterns some line fits', async () => {
  const account = 'fits';
  await store.insert(encodeRows([{ ...stored('user bob logged in 42'), account }]));
  const fit = (pattern: string, tokens = 5) => ({ pattern, tokens });
  const seen = await store.anyMaskedMatch(filter(account), [fit('^user [^ ]* logged in <\\*>$'), fit('^user [^ ]* logged out [^ ]*$'), fit('^user bob logged in [^ ]*$'), fit('^user bob logged in [^ ]*$', 4)]);
  // The last: the right pattern, but a text it matches has 5 tokens, so none of 4 is tested.
  assert.deepEqual(seen, [true, false, true, false]);
  assert.deepEqual(await store.anyMaskedMatch(filter('nobody'), [fit('^.*$', 1)]), [false]);
  // Given needles, only lines holding one are masked and tested.
  assert.deepEqual(await store.anyMaskedMatch(filter(account), [fit('^user bob logged in [^ ]*$')], ['logged in']), [true]);
  assert.deepEqual(await store.anyMaskedMatch(filter(account), [fit('^user bob logged in [^ ]*$')], ['logged out']), [false]);
});
