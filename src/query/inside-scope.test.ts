/**
 * filterInsideScope must be sound: whenever it says a filter (an exclusion rule's apps, hosts and
 * query) lies inside an access scope, no line the filter lets through is outside the scope, as
 * the in-memory matcher (which agrees with the store's SQL, differential.test.ts) decides. Fixed
 * cases for what it proves, then generated filters, scopes and lines, fixed seed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { filterInsideScope } from './inside-scope.js';
import { lineMatcher } from './line-matcher.js';
import type { SearchableLine } from './searchable.js';

const rule = (fields: { apps?: string[]; hosts?: string[]; query?: string }) => ({ apps: fields.apps ?? [], hosts: fields.hosts ?? [], query: fields.query ?? '' });

test('what is proved inside a scope, and what is not', () => {
  const billing = ['app:billing'];
  assert.equal(filterInsideScope(rule({ apps: ['payroll'] }), null), true, 'no scope: every rule');
  assert.equal(filterInsideScope(rule({ apps: ['payroll'] }), ['app:billing', '']), true, 'a scope with a search of every line');
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), billing), true);
  // app:billing is a word match: it lets billing-eu through, and not payroll.
  assert.equal(filterInsideScope(rule({ apps: ['billing', 'billing-eu'] }), billing), true);
  assert.equal(filterInsideScope(rule({ apps: ['billing', 'payroll'] }), billing), false);
  assert.equal(filterInsideScope(rule({ apps: ['payroll'] }), billing), false);
  assert.equal(filterInsideScope(rule({ hosts: ['web-1'] }), billing), false, 'a rule naming no app lets any app through');
  assert.equal(filterInsideScope(rule({ query: 'healthz' }), billing), false);
  assert.equal(filterInsideScope(rule({ query: 'app:billing' }), billing), true, 'the query is the scope search');
  assert.equal(filterInsideScope(rule({ query: 'healthz app:billing' }), billing), true, 'an AND with the scope search');
  assert.equal(filterInsideScope(rule({ query: 'healthz OR app:billing' }), billing), false, 'an OR with it is not inside');
  assert.equal(filterInsideScope(rule({ apps: ['billing'], query: 'anything' }), billing), true);
  // A scope of two searches: each app must pass one of them.
  assert.equal(filterInsideScope(rule({ apps: ['billing', 'crm'] }), ['app:billing', 'app:crm']), true);
  // A search on the host needs the rule's hosts; one on app and host needs both.
  assert.equal(filterInsideScope(rule({ hosts: ['web-1'] }), ['host:web-1']), true);
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), ['app:billing host:web-1']), false);
  assert.equal(filterInsideScope(rule({ apps: ['billing'], hosts: ['web-1'] }), ['app:billing host:web-1']), true);
  assert.equal(filterInsideScope(rule({ apps: ['billing'], hosts: ['web-1', 'db-1'] }), ['app:billing host:web-1']), false);
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), ['-app:payroll']), true);
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), ['app:billing level:error']), false, 'a search that looks at more than names');
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), ['billing']), false, 'a bare word is searched in the line too');
  assert.equal(filterInsideScope(rule({ apps: ['billing'] }), []), false, 'a scope of no search');
});

const APPS = ['billing', 'billing-eu', 'payroll', 'pay', 'Billing', 'crm'];
const HOSTS = ['web-1', 'web-10', 'db-1'];
const SEARCHES = [
  'app:billing', 'app:==billing', 'app:pay', 'host:web-1', 'host:==web-1', 'app:billing host:web-1', 'app:billing OR host:db-1', '-app:payroll',
  'app:billing level:error', 'billing', 'error', 'app:billing OR error', '-host:web-1', 'app:crm', '(app:billing OR app:crm) -host:db-1',
];
const QUERIES = ['', 'error', 'healthz', ...SEARCHES, 'error app:billing', 'app:billing healthz host:web-1', 'app:pay OR app:crm', '-error'];

const line = fc.record({
  app: fc.constantFrom(...APPS),
  host: fc.constantFrom(...HOSTS),
  level: fc.constantFrom('INFO', 'ERROR'),
  line: fc.constantFrom('ok', 'error here', 'healthz', 'billing', 'payroll error'),
});

test('generated: a filter said to be inside a scope lets no line outside it through', () => {
  let provedInside = 0;
  fc.assert(
    fc.property(
      fc.subarray(APPS, { maxLength: 3 }),
      fc.subarray(HOSTS, { maxLength: 2 }),
      fc.constantFrom(...QUERIES),
      fc.array(fc.constantFrom(...SEARCHES), { minLength: 1, maxLength: 3 }),
      fc.array(line, { minLength: 20, maxLength: 40 }),
      (apps, hosts, query, scope, lines) => {
        if (!filterInsideScope({ apps, hosts, query }, scope)) return;
        provedInside++;
        const inFilter = lineMatcher({ apps, hosts, query }, null);
        const inScope = lineMatcher({}, scope);
        for (const fields of lines) {
          const row: SearchableLine = { ...fields, file: '', env: '', tags: [], meta: '', meta_indexed: false, fields: '', size: 1 };
          assert.ok(!inFilter(row) || inScope(row), `${JSON.stringify({ apps, hosts, query })} inside ${JSON.stringify(scope)}, yet ${JSON.stringify(fields)} is outside`);
        }
      },
    ),
    { seed: 20_261_201, numRuns: 3000 },
  );
  assert.ok(provedInside > 200, `enough generated filters were proved inside to test (${provedInside})`);
});
