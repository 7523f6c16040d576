import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { LEGACY_SQLITE_VERSION } from './legacy-sqlite-migrations.js';
import { CONFIG_MIGRATIONS } from './migrations.js';
import { CONFIG_FILE, openConfigDatabase } from './open.js';

test('a new embedded configuration says it has the legacy schema, so an older release would open it', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-config-'));
  try {
    const { database, applied } = await openConfigDatabase({ dataDir });
    assert.deepEqual(applied, CONFIG_MIGRATIONS);
    assert.equal(database.sqlite!.pragma('user_version', { simple: true }), LEGACY_SQLITE_VERSION);
    await database.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a step cut short on SQLite (its column added, the step not recorded) is finished at the next start', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-config-'));
  try {
    const first = await openConfigDatabase({ dataDir });
    await sql`INSERT INTO archive_restores (id, account, from_ms, to_ms, query, keep_until, status, created_at, heartbeat_at) VALUES ('r1', 'a', 0, 1, '', 2, 'running', 3, 4)`.execute(first.database.db);
    // Step 6, cut short after its column additions (one of its tables missing), and step 7 (a
    // table rebuild, done whole) and steps 8 to 11 (columns added) unrecorded after it.
    await sql`DELETE FROM kysely_migration WHERE name IN ('0006_parsers', '0007_restore_control', '0008_restore_filters', '0009_setters', '0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards')`.execute(first.database.db);
    await sql`DROP TABLE parsed_field_types`.execute(first.database.db);
    await first.database.close();
    const again = await openConfigDatabase({ dataDir });
    assert.deepEqual(again.applied, ['0006_parsers', '0007_restore_control', '0008_restore_filters', '0009_setters', '0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards']);
    assert.equal((await sql<{ n: number }>`SELECT count(*) AS n FROM parsed_field_types`.execute(again.database.db)).rows[0].n, 0);
    const kept = await sql<{ status: string; heartbeat_at: number }>`SELECT status, heartbeat_at FROM archive_restores WHERE id = 'r1'`.execute(again.database.db);
    assert.deepEqual(kept.rows, [{ status: 'running', heartbeat_at: 4 }], 'the rebuilt table is not rebuilt again');
    await again.database.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("step 7 on SQLite rebuilds archive_restores: 'cancelled' allowed, rows kept, a restore running under the old build ended as interrupted", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-config-'));
  try {
    const first = await openConfigDatabase({ dataDir });
    const db = first.database.db;
    // The table as step 4 made it, with a restore done and one running when the upgrade came.
    await sql`DROP TABLE archive_restores`.execute(db);
    await sql.raw(`CREATE TABLE archive_restores (id TEXT PRIMARY KEY, account TEXT NOT NULL, from_ms INTEGER NOT NULL, to_ms INTEGER NOT NULL, query TEXT NOT NULL,
      keep_until INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')), lines_found INTEGER NOT NULL DEFAULT 0,
      lines_restored INTEGER NOT NULL DEFAULT 0, error TEXT, created_at INTEGER NOT NULL, finished_at INTEGER)`).execute(db);
    await sql`INSERT INTO archive_restores (id, account, from_ms, to_ms, query, keep_until, status, lines_found, lines_restored, created_at, finished_at)
      VALUES ('done1', 'a', 0, 10, 'x', 20, 'done', 5, 4, 1, 2), ('run1', 'a', 0, 10, 'y', 20, 'running', 1, 1, 7, NULL)`.execute(db);
    await assert.rejects(sql`UPDATE archive_restores SET status = 'cancelled' WHERE id = 'run1'`.execute(db), /CHECK constraint/);
    await sql`DELETE FROM kysely_migration WHERE name IN ('0007_restore_control', '0008_restore_filters', '0009_setters', '0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards')`.execute(db);
    await first.database.close();

    const again = await openConfigDatabase({ dataDir });
    assert.deepEqual(again.applied, ['0007_restore_control', '0008_restore_filters', '0009_setters', '0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards']);
    const rows = await sql<Record<string, unknown>>`SELECT id, status, lines_found, lines_restored, error, finished_at, heartbeat_at FROM archive_restores ORDER BY id`.execute(again.database.db);
    assert.deepEqual(rows.rows, [
      { id: 'done1', status: 'done', lines_found: 5, lines_restored: 4, error: null, finished_at: 2, heartbeat_at: null },
      { id: 'run1', status: 'failed', lines_found: 1, lines_restored: 1, error: 'interrupted by an upgrade; start the restore again (nothing is loaded twice)', finished_at: 7, heartbeat_at: null },
    ]);
    await sql`UPDATE archive_restores SET status = 'cancelled' WHERE id = 'run1'`.execute(again.database.db);
    await again.database.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an embedded configuration from before Kysely (legacy step 5) is brought up to date, its rows kept', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-config-'));
  try {
    // The schema a release at legacy step 5 left: made by this build's legacy steps, stopped there.
    const legacy = new Database(path.join(dataDir, CONFIG_FILE));
    legacy.exec(`CREATE TABLE accounts (account TEXT PRIMARY KEY, name TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL);
      CREATE TABLE api_keys (id TEXT PRIMARY KEY, account TEXT NOT NULL REFERENCES accounts(account), type TEXT NOT NULL CHECK (type IN ('ingestion', 'service')),
        name TEXT NOT NULL DEFAULT '', key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT);
      CREATE TABLE meta_field_types (account TEXT NOT NULL, path TEXT NOT NULL, type TEXT NOT NULL, PRIMARY KEY (account, path)) WITHOUT ROWID;
      CREATE TABLE categories (id TEXT PRIMARY KEY, account TEXT NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE presets (presetid TEXT PRIMARY KEY, account TEXT NOT NULL, name TEXT NOT NULL, channels TEXT NOT NULL, created_at TEXT NOT NULL, modified_at TEXT NOT NULL);
      CREATE TABLE views (viewid TEXT PRIMARY KEY, account TEXT NOT NULL, name TEXT NOT NULL, filters TEXT NOT NULL, category_ids TEXT NOT NULL, presetid TEXT, channels TEXT NOT NULL, created_at TEXT NOT NULL, modified_at TEXT NOT NULL);
      CREATE TABLE alert_windows (viewid TEXT NOT NULL, alertid TEXT NOT NULL, account TEXT NOT NULL, window_start INTEGER NOT NULL, count INTEGER NOT NULL, fired_immediate INTEGER NOT NULL DEFAULT 0, samples TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (viewid, alertid)) WITHOUT ROWID;
      CREATE TABLE view_activity (viewid TEXT PRIMARY KEY, account TEXT NOT NULL, last_line_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE alert_fires (id INTEGER PRIMARY KEY, account TEXT NOT NULL, viewid TEXT NOT NULL, alertid TEXT NOT NULL, window_start INTEGER NOT NULL, kind TEXT NOT NULL, matches INTEGER NOT NULL, fired_at INTEGER NOT NULL, UNIQUE (viewid, alertid, window_start));
      CREATE TABLE deliveries (id INTEGER PRIMARY KEY, account TEXT NOT NULL, fire_id INTEGER, integration TEXT NOT NULL, target TEXT NOT NULL, message TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      CREATE TABLE delivery_attempts (id INTEGER PRIMARY KEY, delivery_id INTEGER NOT NULL, at INTEGER NOT NULL, outcome TEXT NOT NULL, detail TEXT NOT NULL);
      CREATE TABLE sessions (id_hash TEXT PRIMARY KEY, account TEXT NOT NULL, key_id TEXT NOT NULL DEFAULT '', csrf TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO accounts VALUES ('a1', 'Old', 1, '2026-01-01T00:00:00.000Z');
      INSERT INTO meta_field_types VALUES ('a1', 'user', 'string');
      PRAGMA user_version = 5;`);
    legacy.close();
    const { database, applied } = await openConfigDatabase({ dataDir });
    assert.deepEqual(applied, CONFIG_MIGRATIONS);
    const account = await database.db.selectFrom('accounts').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual([account.name, account.retention_days, account.deactivated_at], ['Old', null, null], 'legacy steps 6 and 9 added their columns');
    assert.deepEqual(await database.db.selectFrom('meta_field_types').selectAll().execute(), [{ account: 'a1', path: 'user', type: 'string', first_day: '' }]);
    assert.equal(database.sqlite!.pragma('user_version', { simple: true }), LEGACY_SQLITE_VERSION);
    await database.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('step 10 gives the groups saved before it empty lists of apps and hosts, which limit nothing', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-config-'));
  try {
    const first = await openConfigDatabase({ dataDir });
    const db = first.database.db;
    // The table as step 3 made it, holding a group saved then.
    await sql`ALTER TABLE member_groups DROP COLUMN apps`.execute(db);
    await sql`ALTER TABLE member_groups DROP COLUMN hosts`.execute(db);
    await sql`INSERT INTO accounts (account, name, created_at) VALUES ('a', 'A', '2026-01-01T00:00:00.000Z')`.execute(db);
    await sql`INSERT INTO member_groups (id, account, name, access_scopes, created_at, modified_at) VALUES ('g1', 'a', 'Old', '"app:x"', 1, 2)`.execute(db);
    // Kysely runs steps in order only, so the later step is unrecorded too (its columns are there, and kept).
    await sql`DELETE FROM kysely_migration WHERE name IN ('0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards')`.execute(db);
    await first.database.close();

    const again = await openConfigDatabase({ dataDir });
    assert.deepEqual(again.applied, ['0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards']);
    const rows = await again.database.db.selectFrom('member_groups').select(['id', 'access_scopes', 'apps', 'hosts']).execute();
    assert.deepEqual(rows, [{ id: 'g1', access_scopes: '"app:x"', apps: '[]', hosts: '[]' }]);
    await again.database.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
