import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { QueryNode } from './ast.js';
import { QueryParseError, parseQuery } from './parser.js';
import type { SearchableLine } from './searchable.js';
import { toPredicate } from './to-predicate.js';

const text = (value: string, mode: '' | '=' | '==' | '===' = ''): QueryNode => ({ kind: 'text', value, mode });
const and = (...children: QueryNode[]): QueryNode => ({ kind: 'and', children });
const or = (...children: QueryNode[]): QueryNode => ({ kind: 'or', children });
const not = (child: QueryNode): QueryNode => ({ kind: 'not', child });
const builtin = (name: 'host' | 'app' | 'level' | 'file' | 'env' | 'tag', value: string, mode: '' | '=' | '==' | '===' = ''): QueryNode => ({
  kind: 'field',
  field: { kind: 'builtin', name },
  test: { kind: 'text', value, mode },
});
const json = (path: string[], test: any): QueryNode => ({ kind: 'field', field: { kind: 'json', path }, test });
const meta = (path: string[], test: any): QueryNode => ({ kind: 'field', field: { kind: 'meta', path }, test });

describe('parse', () => {
  const cases: Array<[string, QueryNode]> = [
    ['', { kind: 'all' }],
    ['   ', { kind: 'all' }],
    ['lin', text('lin')],
    ['"job failed"', text('job failed')],
    ["'job failed'", text('job failed')],
    ['"Host \\"logdna-host\\" not found"', text('Host "logdna-host" not found')],
    ['"response:"', text('response:')],
    ['%VARIABLE%', text('%VARIABLE%')],
    ['"+" "-"', and(text('+'), text('-'))],
    ['a b', and(text('a'), text('b'))],
    ['a AND b', and(text('a'), text('b'))],
    ['a and b', and(text('a'), text('and'), text('b'))],
    ['a OR b', or(text('a'), text('b'))],
    ['a or b', and(text('a'), text('or'), text('b'))],
    // Documented precedence: grouping, then NOT, then OR, then AND.
    ['me myself OR I', and(text('me'), or(text('myself'), text('I')))],
    ['(me myself) OR I', or(and(text('me'), text('myself')), text('I'))],
    ['healthcheck -successful OR ping', and(text('healthcheck'), or(not(text('successful')), text('ping')))],
    ['-healthcheck', not(text('healthcheck'))],
    ['NOT healthcheck', not(text('healthcheck'))],
    ['NOTE', text('NOTE')],
    ['foo-bar', text('foo-bar')],
    ['app:memo -("success" OR "waiting")', and(builtin('app', 'memo'), not(or(text('success'), text('waiting'))))],
    ['===barrier', text('barrier', '===')],
    ['==bob =Bob', and(text('bob', '=='), text('Bob', '='))],
    ['host:myawesomehost -app:mycoolapp', and(builtin('host', 'myawesomehost'), not(builtin('app', 'mycoolapp')))],
    ['source:node1', builtin('host', 'node1')],
    ['tag:prod file:/var/log/syslog env:staging', and(builtin('tag', 'prod'), builtin('file', '/var/log/syslog'), builtin('env', 'staging'))],
    ['level:error', builtin('level', 'error')],
    ['name:=camelCasedName', json(['name'], { kind: 'text', value: 'camelCasedName', mode: '=' })],
    ['name:==bob', json(['name'], { kind: 'text', value: 'bob', mode: '==' })],
    ['name:===Bob', json(['name'], { kind: 'text', value: 'Bob', mode: '===' })],
    ['user:*', json(['_user'], { kind: 'exists' })],
    ['level:[warning,error]', or(builtin('level', 'warning'), builtin('level', 'error'))],
    ['level:[warning, error]', or(builtin('level', 'warning'), builtin('level', ' error'))],
    ['level:===[warning,error]', or(builtin('level', 'warning', '==='), builtin('level', 'error', '==='))],
    ['msg:[a (b),c]', or(json(['msg'], { kind: 'text', value: 'a (b)', mode: '' }), json(['msg'], { kind: 'text', value: 'c', mode: '' }))],
    ['user.id:12345', json(['_user', 'id'], { kind: 'equals', value: 12345, text: '12345' })],
    ['meta.status_code:404', meta(['status_code'], { kind: 'equals', value: 404, text: '404' })],
    ['meta.user.id:42', meta(['user', 'id'], { kind: 'equals', value: 42, text: '42' })],
    ['response:>=400', json(['_response'], { kind: 'compare', op: '>=', value: 400 })],
    ['latency:<0.5', json(['latency'], { kind: 'compare', op: '<', value: 0.5 })],
    ['delta:>-5', json(['delta'], { kind: 'compare', op: '>', value: -5 })],
    ['code:=404', json(['code'], { kind: 'equals', value: 404, text: '404' })],
    [
      'response:(>=400 <500 -404)',
      and(
        json(['_response'], { kind: 'compare', op: '>=', value: 400 }),
        json(['_response'], { kind: 'compare', op: '<', value: 500 }),
        not(json(['_response'], { kind: 'equals', value: 404, text: '404' })),
      ),
    ],
    [
      'status:(>100 AND <= 503)',
      and(json(['_status'], { kind: 'compare', op: '>', value: 100 }), json(['_status'], { kind: 'compare', op: '<=', value: 503 })),
    ],
    ['level:-(debug OR trace)', not(or(builtin('level', 'debug'), builtin('level', 'trace')))],
    ['_mezmo_line_size:>4000', { kind: 'field', field: { kind: 'size' }, test: { kind: 'compare', op: '>', value: 4000 } }],
    ['12:30:00', text('12:30:00')],
    ['ünïcødé 日本語', and(text('ünïcødé'), text('日本語'))],
    ['((((a))))', text('a')],
  ];
  for (const [query, expected] of cases) {
    test(JSON.stringify(query), () => assert.deepEqual(parseQuery(query), expected));
  }
});

describe('errors name the position and what was expected', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['(a b', 4, /"\)" to close the group opened at position 0/],
    ['a b)', 3, /no "\)" without a matching "\("/],
    ['"open phrase', 12, /" to close the phrase opened at position 0/],
    ['a OR', 4, /a term after OR/],
    ['a AND', 5, /a term after AND/],
    ['NOT', 3, /a term after NOT/],
    ['a - b', 3, /a term after "-"/],
    ['meta.weather.monday: rain', 20, /a value right after "meta.weather.monday:"/],
    ['level:[a,b', 10, /"\]" to close the list/],
    ['level:[a,,b]', 7, /a value between the commas/],
    ['status:>abc', 8, /a number after ">"/],
    ['host:>5', 5, /a numeric field/],
    ['()', 1, /a term inside the parentheses/],
    ['AND', 0, /a term before AND/],
    ['OR b', 0, /a term before OR/],
    ['a (OR b)', 3, /a term before OR/],
    ['""', 1, /text inside the quotes/],
  ];
  for (const [query, position, expected] of cases) {
    test(JSON.stringify(query), () => {
      assert.throws(
        () => parseQuery(query),
        (error: unknown) => {
          assert.ok(error instanceof QueryParseError);
          assert.equal(error.position, position, error.message);
          assert.match(error.message, expected);
          return true;
        },
      );
    });
  }

  test('very deep nesting is refused, not a stack overflow', () => {
    assert.throws(() => parseQuery(`${'('.repeat(5000)}a${')'.repeat(5000)}`), QueryParseError);
    assert.throws(() => parseQuery(`${'-'.repeat(5000)}a`), QueryParseError);
    assert.deepEqual(parseQuery(`${'('.repeat(50)}a${')'.repeat(50)}`), text('a'));
  });

  test('very long queries parse, up to 10,000 characters and 200 terms', () => {
    const long = Array.from({ length: 200 }, (_, i) => `w${i}${'x'.repeat(40)}`).join(' OR ');
    assert.ok(long.length > 9000);
    assert.equal((parseQuery(long) as { children: unknown[] }).children.length, 200);
    assert.throws(() => parseQuery('a '.repeat(6000)), /at most 10000 characters/);
  });

  test('more than 200 terms are refused at the first one too many', () => {
    const words = Array.from({ length: 201 }, (_, i) => `w${i}`);
    let error: unknown;
    try {
      parseQuery(words.join(' '));
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof QueryParseError);
    assert.equal(error.position, words.slice(0, 200).join(' ').length + 1);
    assert.match(error.message, /at most 200 search terms/);
    // The values of a field list are terms too; phrases and field tests count like words.
    assert.throws(() => parseQuery(`app:[${words.slice(0, 150).join(',')}] ${words.slice(0, 51).join(' ')}`), /at most 200 search terms/);
    assert.doesNotThrow(() => parseQuery(`app:[${words.slice(0, 150).join(',')}] "a b" meta.x:>1 ${words.slice(0, 48).join(' ')}`));
  });
});

describe('matching (in memory; the differential test proves SQL agrees)', () => {
  const line = (fields: Partial<SearchableLine>): SearchableLine => ({
    line: '',
    host: 'web-1',
    app: 'api',
    level: 'INFO',
    file: '',
    env: '',
    tags: [],
    meta: '',
    meta_indexed: false,
    fields: '',
    size: 0,
    ...fields,
  });
  const matches = (query: string, subject: SearchableLine) => toPredicate(parseQuery(query))(subject);

  test('terms are case-insensitive prefixes of words', () => {
    const subject = line({ line: 'Linux kernel: barrier reached' });
    assert.ok(matches('lin', subject));
    assert.ok(matches('LIN', subject));
    assert.ok(matches('BAR', subject));
    assert.ok(!matches('inux', subject), 'not inside a word');
    assert.ok(!matches('=lin', subject), '= is case-sensitive');
    assert.ok(matches('=Lin', subject));
    assert.ok(!matches('==barr', subject), '== wants the whole word');
    assert.ok(matches('==BARRIER', subject));
    assert.ok(!matches('===BARRIER', subject));
    assert.ok(matches('===barrier', subject));
  });

  test('words are searched in the fields too', () => {
    const subject = line({ line: 'hello', host: 'db-primary', tags: ['k8s'], meta: '{"customer":"acme"}', meta_indexed: true });
    assert.ok(matches('primary', subject));
    assert.ok(matches('k8s', subject));
    assert.ok(matches('acme', subject));
    assert.ok(!matches('acme', { ...subject, meta_indexed: false }), 'meta that broke the type rule is not searched');
  });

  test('phrases match a sequence, quotes and symbols included', () => {
    const subject = line({ line: 'ERROR: Host "logdna-host" not found (code=7)' });
    assert.ok(matches('"host \\"logdna-host\\" not"', subject));
    assert.ok(matches('"(code=7)"', subject));
    assert.ok(!matches('"host not"', subject));
  });

  test('numbers compare only on numeric values; = means equality there', () => {
    const subject = line({ fields: '{"_status":404,"code":"404","latency":0.25}' });
    assert.ok(matches('status:(>=400 <500)', subject));
    assert.ok(!matches('status:(>=400 <500 -404)', subject));
    assert.ok(!matches('code:>400', subject), 'a string is not a number');
    assert.ok(matches('code:404', subject), 'but matches as text');
    assert.ok(matches('latency:<0.5', subject));
    assert.ok(matches('status:=404', subject));
    assert.ok(!matches('status:=40', subject), 'numeric equality, not a prefix');
  });

  test('the line size is a number', () => {
    assert.ok(matches('_mezmo_line_size:>3', line({ size: 4 })));
    assert.ok(!matches('_mezmo_line_size:>4', line({ size: 4 })));
  });

  test('the empty query matches everything', () => assert.ok(matches('', line({}))));
});
