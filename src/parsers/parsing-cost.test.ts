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
import { type CompiledParser, LINE_STEPS, MAX_PROGRAM_SIZE, ParserRules, compilePattern, extract, lineBudget } from './parser-rules.js';
import type { Parser, ParserStore } from './parser-store.js';

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
    const cheapFirst = pending(`count=42 ${LONG_LINE}`);
    applyParsers(cheapFirst, [rule('^count=(?P<count>\\d+)', 'cheap'), ...rules]);
    assert.equal(cheapFirst.row.logtype, 'cheap');
    assert.deepEqual(JSON.parse(cheapFirst.row.fields!), { count: '42' });
  });

  test('a match is charged twice what it read: finding the captures costs about as much again', () => {
    const count = rule('count=(?P<count>\\d+)');
    const line = `count=42 ${'x'.repeat(100)}`;
    const budget = lineBudget();
    assert.ok(extract(count, line, budget));
    assert.equal(budget.steps, LINE_STEPS - 2 * line.length * count.size);
    const missed = lineBudget();
    assert.equal(extract(count, 'nothing here', missed), null);
    assert.equal(missed.steps, LINE_STEPS - 'nothing here'.length * count.size);
  });

  test('on a line read only in part, a match that reaches the cut is refused; one that ends before it stands', () => {
    const longLine = `id=7 ${'y'.repeat(20 * 1024)} end`;
    assert.equal(extract(rule('^id=(?P<id>\\d+) (?P<rest>.*)'), longLine), null, '.* would capture a line cut short');
    assert.equal(extract(rule('^id=(?P<id>\\d+) y+$'), longLine), null, '$ would accept the cut as the end');
    assert.deepEqual(extract(rule('^id=(?P<id>\\d+) ', 'head'), longLine)?.fields, { id: '7' });
    assert.deepEqual(extract(rule('^id=(?P<id>\\d+) (?P<rest>.*)'), 'id=7 short')?.fields, { id: '7', rest: 'short' }, 'a line read whole is unaffected');
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
  test('a test of a pattern draws on the same share, and is refused without running once it is spent', () => {
    let now = 5_000;
    const time = new ParsingTime(() => {}, 200, () => (now += 60));
    time.apply('acme', Array.from({ length: 4 }, (_, index) => pending(`count=${index}`)), [rule('count=(?P<count>\\d+)')]);
    let ran = false;
    assert.deepEqual(time.spend('acme', () => (ran = true)), { done: false });
    assert.equal(ran, false);
    assert.deepEqual(time.spend('other', () => 'tested'), { done: true, value: 'tested' });
    now += 1000;
    assert.deepEqual(time.spend('acme', () => 'tested'), { done: true, value: 'tested' });
  });

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

describe('saved rules', () => {
  const saved = (pattern: string, updated = 1): Parser => ({ id: `p-${pattern.length}`, account: 'acme', name: 'saved', apps: [], hosts: [], query: '', pattern, types: {}, created: 0, updated }) as Parser;
  const storeOf = (parsers: Parser[]) => ({ all: async () => parsers, list: async () => parsers }) as unknown as ParserStore;

  test('a rule saved before the size limit still applies, held to the line budget', async () => {
    const large = '^(?P<head>[a-c]{0,900}[a-c]{0,900}[a-c]{0,900})x';
    assert.throws(() => compilePattern(large, {}), /limit is/);
    const rules = new ParserRules(storeOf([saved(large)]));
    await rules.load();
    const [compiled] = rules.forAccount('acme');
    assert.ok(compiled && compiled.size > MAX_PROGRAM_SIZE, 'it compiled, over the limit for writing');
    const line = pending('abcx and the rest');
    applyParsers(line, [compiled]);
    assert.equal(line.row.logtype, 'saved');
    assert.deepEqual(JSON.parse(line.row.fields!), { head: 'abc' });
  });

  test('a saved rule that does not compile is reported once, not at every reload, and again when it changes', async () => {
    const reported: number[] = [];
    const parsers = [saved('(?P<a>x)\\1')];
    const rules = new ParserRules(storeOf(parsers), (parser) => reported.push(parser.updated));
    await rules.load();
    await rules.load();
    await rules.reload('acme');
    assert.deepEqual(reported, [1]);
    assert.deepEqual(rules.forAccount('acme'), []);
    parsers[0] = saved('(?P<a>x)\\1', 2);
    await rules.load();
    assert.deepEqual(reported, [1, 2]);
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
    const test = () => request(`${server.url}/v1/config/parsers/test`, { method: 'POST', headers: headers(), body: JSON.stringify({ pattern: COSTLY, lines: Array.from({ length: 100 }, () => LONG_LINE.slice(0, 4000)) }) });
    let reply = await test();
    // The ingest above may have spent this second's parsing share: a test then waits for the next.
    for (let tries = 0; reply.status === 429 && tries < 3; tries++) {
      assert.equal(reply.headers.get('retry-after'), '1');
      assert.equal(reply.json.code, 'TooManyRequests');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      reply = await test();
    }
    assert.equal(reply.status, 200, reply.text);
    const reads: number[] = reply.json.lines.map((line: { read?: number }) => line.read);
    const size = compilePattern(COSTLY, {}).size;
    assert.equal(reads[0], Math.floor(LINE_STEPS / size), 'a line reads what one line’s budget pays for');
    assert.ok(reads.slice(0, 10).every((read) => read > 0));
    assert.ok(reads.slice(10).every((read) => read === 0), 'after ten lines’ worth, nothing more is read');
    assert.ok(reply.json.lines.every((line: { matched: boolean }) => !line.matched));
  });
});
