import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type ConfigDb = Database.Database;

/**
 * Schema migrations, applied in order and tracked with SQLite's user_version.
 * Append new steps; never edit a step that has shipped.
 */
const migrations: string[] = [
  `CREATE TABLE accounts (
     account    TEXT PRIMARY KEY,
     name       TEXT NOT NULL,
     active     INTEGER NOT NULL DEFAULT 1,
     created_at TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     type       TEXT NOT NULL CHECK (type IN ('ingestion', 'service')),
     name       TEXT NOT NULL DEFAULT '',
     key_hash   TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE INDEX api_keys_by_account ON api_keys(account);
   CREATE TABLE meta_field_types (
     account TEXT NOT NULL,
     path    TEXT NOT NULL,
     type    TEXT NOT NULL,
     PRIMARY KEY (account, path)
   ) WITHOUT ROWID;`,
];

/** Opens (creating if needed) the configuration database under the data directory. */
export function openConfigDb(dataDir: string): ConfigDb {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'config.sqlite'));
  db.pragma('journal_mode = WAL');
  // FULL: a created key or a registered meta type must survive a power cut once acknowledged.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: ConfigDb): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
