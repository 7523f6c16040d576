import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MetaFieldTypes } from './meta-field-types.js';
import { openTestConfig, testConfigDialect } from '../testing/config-database.js';
import { MAX_PARSED_FIELD_NAMES, type MetaTypeOptions, MetaTypeRegistry, type MetaVerdict } from './meta-types.js';

/** A registry on a fresh configuration database of this run's dialect; `another` is a second node on the same one. */
async function registries(options: MetaTypeOptions) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-meta-'));
  const config = await openTestConfig(dir);
  const store = new MetaFieldTypes(config.database.db);
  return {
    registry: new MetaTypeRegistry(store, options),
    another: async () => new MetaTypeRegistry(new MetaFieldTypes((await config.reopen()).db), options),
    async close() {
      await config.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const admit = async (registry: MetaTypeRegistry, account: string, meta: Record<string, unknown>): Promise<MetaVerdict | null> =>
  (await registry.admitAll(account, [meta]))[0];

test('the cap on new meta fields is per UTC day: the next day admits new fields again', async () => {
  let now = Date.parse('2026-03-01T23:59:00Z');
  const setup = await registries({ maxNewFieldsPerDay: 2, now: () => now });
  const { registry } = setup;
  try {
    assert.equal(await admit(registry, 'org', { a: 1, b: { c: 'x' } }), 'indexed');
    assert.equal(await admit(registry, 'org', { d: 1 }), 'dailyCap');
    assert.equal(await admit(registry, 'org', { a: 2, b: { c: 'y' } }), 'indexed', 'known fields are still indexed');
    assert.equal(await admit(registry, 'org', { a: 'text' }), 'typeConflict');
    assert.equal(await admit(registry, 'other', { d: 1, e: 2 }), 'indexed', 'each organisation has its own cap');
    assert.deepEqual(await registry.day('org'), { day: '2026-03-01', limit: 2, added: 2 });

    now = Date.parse('2026-03-02T00:01:00Z');
    assert.equal(await admit(registry, 'org', { d: 1 }), 'indexed');
    assert.equal(await admit(registry, 'org', { f: 1, g: 2 }), 'dailyCap', 'one line may not overshoot the cap');
    assert.deepEqual(await registry.day('org'), { day: '2026-03-02', limit: 2, added: 1 });
    assert.deepEqual(await registry.fields('org'), [
      { path: 'a', type: 'number', firstIndexed: '2026-03-01' },
      { path: 'b.c', type: 'string', firstIndexed: '2026-03-01' },
      { path: 'd', type: 'number', firstIndexed: '2026-03-02' },
    ]);

    // A fresh registry (a restart) counts the day from the database.
    const restarted = await setup.another();
    assert.equal(await admit(restarted, 'org', { f: 1, g: 2 }), 'dailyCap');
    assert.equal(await admit(restarted, 'org', { f: 1 }), 'indexed');
  } finally {
    await setup.close();
  }
});

test('lines of one request are judged in order, as if they came one by one', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 3 });
  try {
    const verdicts = await setup.registry.admitAll('org', [{ a: 1 }, null, { a: 'x' }, { b: 1, c: 1 }, { d: 1 }, { a: 2, b: 3 }]);
    assert.deepEqual(verdicts, ['indexed', null, 'typeConflict', 'indexed', 'dailyCap', 'indexed']);
  } finally {
    await setup.close();
  }
});

test('two spellings of one path in one meta must agree on its type', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 500 });
  try {
    assert.equal(await admit(setup.registry, 'org', { a: { b: 1 }, 'a.b': 'x' }), 'typeConflict');
    assert.deepEqual(await setup.registry.fields('org'), []);
  } finally {
    await setup.close();
  }
});

// Nodes share PostgreSQL; an embedded SQLite file belongs to one process (two connections in one
// thread would wait on each other's locks), so this is a test of the PostgreSQL pass of npm test
// (LOGSTEAD_TEST_DATABASE=postgres) only, and is not declared in the SQLite pass.
const onSharedConfig = testConfigDialect === 'postgres' ? test : () => undefined;
onSharedConfig(
  'across nodes the first type wins, even when two nodes see the two types at the same moment',
  async () => {
  const setup = await registries({ maxNewFieldsPerDay: 500 });
  try {
    const nodeB = await setup.another();
    // Node B has already loaded the organisation's (empty) types, so its cache knows nothing of A's.
    assert.equal(await admit(nodeB, 'org', { warm: true }), 'indexed');
    assert.equal(await admit(setup.registry, 'org', { user: 'u-1' }), 'indexed');
    assert.equal(await admit(nodeB, 'org', { user: 42 }), 'typeConflict', "node B learns node A's type from the database");
    assert.equal(await admit(nodeB, 'org', { user: 'u-2' }), 'indexed');

    for (let round = 0; round < 20; round++) {
      const field = `race${round}`;
      const [a, b] = await Promise.all([admit(setup.registry, 'org', { [field]: 1 }), admit(nodeB, 'org', { [field]: 'one' })]);
      assert.deepEqual([a, b].sort(), ['indexed', 'typeConflict'], `exactly one type wins ${field}`);
      const stored = (await setup.registry.fields('org')).find((info) => info.path === field)!.type;
      assert.equal(stored, a === 'indexed' ? 'number' : 'string', 'the winner is the type stored');
      // Both nodes now agree on what the next line of either type gets.
      assert.equal(await admit(setup.registry, 'org', { [field]: 2 }), stored === 'number' ? 'indexed' : 'typeConflict');
      assert.equal(await admit(nodeB, 'org', { [field]: 'two' }), stored === 'string' ? 'indexed' : 'typeConflict');
    }
  } finally {
    await setup.close();
  }
  },
);

test('a NUL in a meta key names its field with U+FFFD, in both databases', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 500 });
  try {
    assert.equal(await admit(setup.registry, 'org', { 'a\u0000b': 1 }), 'indexed');
    assert.equal(await admit(setup.registry, 'org', { 'a\u0000b': 'text' }), 'typeConflict');
    assert.deepEqual((await setup.registry.fields('org')).map((field) => field.path), ['a\ufffdb']);
  } finally {
    await setup.close();
  }
});

test('meta is typed three levels deep, nulls name no field, and a line that conflicts registers none of its fields', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 500 });
  try {
    assert.equal(await admit(setup.registry, 'org', { a: { b: { c: { d: 1 } } }, n: null, list: [1, 'x'], flag: true }), 'indexed');
    // The third level's object is a leaf: its type is "object", whatever it holds.
    assert.equal(await admit(setup.registry, 'org', { a: { b: { c: { other: 'y' } } } }), 'indexed');
    assert.equal(await admit(setup.registry, 'org', { a: { b: { c: 'text' } } }), 'typeConflict');
    // The conflict comes after a new field in key order; that new field is not registered either.
    assert.equal(await admit(setup.registry, 'org', { fresh: 1, flag: 'no' }), 'typeConflict');
    const fields = await setup.registry.fields('org');
    assert.deepEqual(
      fields.map((field) => [field.path, field.type]).sort(),
      [['a.b.c', 'object'], ['flag', 'boolean'], ['list', 'array']],
    );
  } finally {
    await setup.close();
  }
});

test('format-parsed fields: the first type of a name wins across nodes; numbers of a text field become text; new names stop at the cap', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 2 });
  try {
    const first = [{ code: 'ABC', count: 3 }];
    assert.equal(await setup.registry.settleParsedTypes('org', first), false);
    const elsewhere = await setup.another();
    const later = [{ code: 404, count: 4, fresh: 1.5 }];
    assert.equal(await elsewhere.settleParsedTypes('org', later), true, "another node reads the first node's types");
    assert.deepEqual(later, [{ code: '404', count: 4, fresh: 1.5 }]);
    const otherOrg = [{ code: 404 }];
    assert.equal(await setup.registry.settleParsedTypes('other', otherOrg), false, 'each organisation has its own');
    assert.deepEqual(otherOrg, [{ code: 404 }]);
    // Past the cap, new names are left unrecorded and kept as parsed; recorded ones still hold.
    const many = Object.fromEntries(Array.from({ length: MAX_PARSED_FIELD_NAMES + 10 }, (_, i) => [`k${i}`, 'text']));
    await setup.registry.settleParsedTypes('org', [many]);
    const overflow = [{ k5: 7, [`k${MAX_PARSED_FIELD_NAMES + 5}`]: 7, code: 1 }];
    await setup.registry.settleParsedTypes('org', overflow);
    assert.deepEqual(overflow, [{ k5: '7', [`k${MAX_PARSED_FIELD_NAMES + 5}`]: 7, code: '1' }]);
  } finally {
    await setup.close();
  }
});

test('consecutive lines that share one meta object (OTLP records of a resource) get its verdict and count its new fields once', async () => {
  const setup = await registries({ maxNewFieldsPerDay: 3 });
  try {
    const shared = { service: { name: 'api' }, host: { name: 'h' } };
    const tooMany = { p: 1, q: 2 };
    const clash = { service: { name: 7 } };
    const verdicts = await setup.registry.admitAll('org', [shared, shared, { ...shared, x: 1 }, shared, tooMany, tooMany, clash, clash, null, shared]);
    assert.deepEqual(verdicts, ['indexed', 'indexed', 'indexed', 'indexed', 'dailyCap', 'dailyCap', 'typeConflict', 'typeConflict', null, 'indexed']);
    assert.equal((await setup.registry.day('org')).added, 3, 'service.name, host.name and x, each once');
  } finally {
    await setup.close();
  }
});
