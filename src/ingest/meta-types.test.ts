import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openConfigDb } from '../config/database.js';
import { MetaTypeRegistry } from './meta-types.js';

test('the cap on new meta fields is per UTC day: the next day admits new fields again', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-meta-'));
  const db = openConfigDb(dataDir);
  try {
    let now = Date.parse('2026-03-01T23:59:00Z');
    const registry = new MetaTypeRegistry(db, { maxNewFieldsPerDay: 2, now: () => now });
    assert.equal(registry.admit('org', { a: 1, b: { c: 'x' } }), 'indexed');
    assert.equal(registry.admit('org', { d: 1 }), 'dailyCap');
    assert.equal(registry.admit('org', { a: 2, b: { c: 'y' } }), 'indexed', 'known fields are still indexed');
    assert.equal(registry.admit('org', { a: 'text' }), 'typeConflict');
    assert.equal(registry.admit('other', { d: 1, e: 2 }), 'indexed', 'each organisation has its own cap');
    assert.deepEqual(registry.day('org'), { day: '2026-03-01', limit: 2, added: 2 });

    now = Date.parse('2026-03-02T00:01:00Z');
    assert.equal(registry.admit('org', { d: 1 }), 'indexed');
    assert.equal(registry.admit('org', { f: 1, g: 2 }), 'dailyCap', 'one line may not overshoot the cap');
    assert.deepEqual(registry.day('org'), { day: '2026-03-02', limit: 2, added: 1 });
    assert.deepEqual(registry.fields('org'), [
      { path: 'a', type: 'number', firstIndexed: '2026-03-01' },
      { path: 'b.c', type: 'string', firstIndexed: '2026-03-01' },
      { path: 'd', type: 'number', firstIndexed: '2026-03-02' },
    ]);

    // A fresh registry (a restart) counts the day from the database.
    const restarted = new MetaTypeRegistry(db, { maxNewFieldsPerDay: 2, now: () => now });
    assert.equal(restarted.admit('org', { f: 1, g: 2 }), 'dailyCap');
    assert.equal(restarted.admit('org', { f: 1 }), 'indexed');
  } finally {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('two spellings of one path in one meta must agree on its type', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-meta-'));
  const db = openConfigDb(dataDir);
  try {
    const registry = new MetaTypeRegistry(db, { maxNewFieldsPerDay: 500 });
    assert.equal(registry.admit('org', { a: { b: 1 }, 'a.b': 'x' }), 'typeConflict');
    assert.deepEqual(registry.fields('org'), []);
  } finally {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
