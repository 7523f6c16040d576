/**
 * What one organisation's parsing rules may cost. RE2 matches in linear time, but linear in
 * instructions times characters: a pattern that keeps many threads alive costs about a second on
 * one 16 KiB line (measured with re2js), so each line is held to LINE_STEPS over all the rules
 * tried on it, each organisation to its share of time a second, and a test request to ten lines'
 * worth. These tests count steps, not seconds, wherever they can.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { normaliseLine } from '../ingest/normalise.js';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { ParsingTime, applyParsers } from './apply.js';
import { type CompiledParser, LINE_STEPS, MAX_PROGRAM_SIZE, compilePattern, extract, lineBudget } from './parser-rules.js';

/** Unanchored, many live threads, and never matching a line of one letter: the costliest kind. */
const COSTLY = '(?P<run>(?:a|aa)*(?:a|b){400})[A-Y]';
const LONG_LINE = 'a'.repeat(16 * 1024);

const rule = (pattern: string, name = 'rule'): CompiledParser => ({ ...compilePattern(pattern, {}), id: name, name, updated: 0, applies: () => true });
const pending = (line: string) =>
  normaliseLine({ line, app: 'app' }, { account: 'acme', batchId: 'b', receivedAt: Date.now(), driftMs: 0, source: { hostname: 'h', ip: '', mac: '', tags: [], nowMs: null } }, 'id');

describe('the step budget of one line', () => {
  test('a costly pattern reads only as much of a long line as the budget pays for, and draws it down', () => {
    const costly = rule(COSTLY);
    assert.ok(costly.size > 400 && costly.size <= MAX_PROGRAM_SIZE, `the costly pattern compiles to ${costly.size} instructions`);
    const budget = lineBudget();
    assert.equal(extract(costly, LONG_LINE, budget), null);
    const read = Math.floor(LINE_STEPS / costly.size);
    assert.ok(read < LONG_LINE.length);
    assert.equal(budget.steps, LINE_STEPS - read * costly.size);
    assert.equal(extract(costly, LONG_LINE, budget), null, 'spent: the next rule reads nothing');
    assert.equal(budget.steps, LINE_STEPS - read * costly.size, 'and spends nothing');
  });

  test('fifty costly rules on one line spend one line’s budget between them; a cheap rule before them still parses', () => {
    const rules = Array.from({ length: 50 }, (_, index) => rule(COSTLY, `costly-${index}`));
    const line = pending(LONG_LINE);
    const budget = lineBudget();
    applyParsers(line, rules, budget);
    assert.ok(budget.steps >= 0 && budget.steps < rules[0].size, `the budget is spent (${budget.steps} left) and never overdrawn`);
    assert.notEqual(line.row.logtype?.startsWith('costly'), true, 'nothing matched');
    const cheapFirst = pending(`count=42 ${LONG_LINE}`);
    applyParsers(cheapFirst, [rule('^count=(?P<count>\\d+)', 'cheap'), ...rules]);
    assert.equal(cheapFirst.row.logtype, 'cheap');
    assert.deepEqual(JSON.parse(cheapFirst.row.fields!), { count: '42' });
  });

  test('an ordinary pattern reads the whole of an ordinary line', () => {
    const access = rule('^(?P<ip>\\S+) \\S+ (?P<user>\\S+) \\[(?P<time>[^\\]]+)\\] "(?P<method>[A-Z]+) (?P<path>[^ "]+) HTTP/[0-9.]+" (?P<status>\\d{3}) (?P<bytes>\\d+|-)');
    assert.ok(access.size < 200, `a thorough access-log pattern is small (${access.size} instructions)`);
    const got = extract(access, `10.0.0.1 - bob [26/Nov/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 512 ${'x'.repeat(4000)}`);
    assert.equal(got?.fields._method, 'GET');
    assert.equal(got?.fields._bytes, '512');
  });
});

describe("an organisation's share of parsing time", () => {
  test('past its share in one second, the rest of its lines are stored without its rules and counted; the next second it parses again', () => {
    let now = 10_000;
    const skipped: Array<[string, number]> = [];
    // Each line's rules "take" 60 ms of this clock: the share (200 ms) is spent after the fourth line.
    const time = new ParsingTime((account, lines) => skipped.push([account, lines]), 200, () => (now += 60));
    const lines = Array.from({ length: 10 }, (_, index) => pending(`count=${index}`));
    time.apply('acme', lines, [rule('count=(?P<count>\\d+)')]);
    const parsed = lines.filter((line) => line.row.logtype === 'rule').length;
    assert.equal(parsed, 4);
    assert.deepEqual(skipped, [['acme', 6]]);
    time.apply('other', [pending('count=1')], [rule('count=(?P<count>\\d+)')]);
    assert.deepEqual(skipped, [['acme', 6]], "another organisation's share is its own");
    now += 1000;
    const later = [pending('count=99')];
    time.apply('acme', later, [rule('count=(?P<count>\\d+)')]);
    assert.equal(later[0].row.logtype, 'rule');
  });
});

describe('through the server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const headers = () => ({ servicekey: server.org.serviceKey, 'content-type': 'application/json' });

  test('a pattern over the size limit is refused; ingest of long lines under costly rules is answered, stores every line, and counts what it left unparsed', async () => {
    const tooLarge = await request(`${server.url}/v1/config/parsers`, { method: 'POST', headers: headers(), body: JSON.stringify({ name: 'big', pattern: `(?P<word>${'\\w{1000}'.repeat(3)})` }) });
    assert.equal(tooLarge.status, 400, tooLarge.text);
    assert.match(tooLarge.json.error, new RegExp(`limit is ${MAX_PROGRAM_SIZE}`));
    for (let index = 0; index < 50; index++) {
      const made = await request(`${server.url}/v1/config/parsers`, { method: 'POST', headers: headers(), body: JSON.stringify({ name: `costly-${index}`, pattern: COSTLY }) });
      assert.equal(made.status, 200, made.text);
    }
    const lines = Array.from({ length: 100 }, (_, index) => ({ line: `${index} ${LONG_LINE}`, app: 'costly' }));
    const reply = await request(`${server.url}/logs/ingest?hostname=costly`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
    assert.equal(reply.status, 200, reply.text);
    const exported = await request(`${server.url}/v1/export?from=${Date.now() - 3_600_000}&to=${Date.now() + 60_000}&apps=costly`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(exported.text.trim().split('\n').length, 100, 'every line stored');
    const metrics = (await request(`${server.url}/metrics`)).text;
    const left = Number(/^logstead_parsing_skipped_lines_total (\d+)/m.exec(metrics)?.[1] ?? 0);
    // 100 lines at up to LINE_STEPS each is seconds of matching; the share is 200 ms a second.
    assert.ok(left > 0, `lines were left unparsed once the share was spent (${left})`);
  });

  test('a test request shares ten lines’ budget among its lines, and says how much of a line was read', async () => {
    const reply = await request(`${server.url}/v1/config/parsers/test`, { method: 'POST', headers: headers(), body: JSON.stringify({ pattern: COSTLY, lines: Array.from({ length: 100 }, () => LONG_LINE.slice(0, 4000)) }) });
    assert.equal(reply.status, 200, reply.text);
    const reads: number[] = reply.json.lines.map((line: { read?: number }) => line.read);
    const size = compilePattern(COSTLY, {}).size;
    assert.equal(reads[0], Math.floor(LINE_STEPS / size), 'a line reads what one line’s budget pays for');
    assert.ok(reads.slice(0, 10).every((read) => read > 0));
    assert.ok(reads.slice(10).every((read) => read === 0), 'after ten lines’ worth, nothing more is read');
    assert.ok(reply.json.lines.every((line: { matched: boolean }) => !line.matched));
  });
});
