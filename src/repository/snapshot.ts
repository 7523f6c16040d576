import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LEGACY_SQLITE_VERSION } from './legacy-sqlite-migrations.js';
import { CONFIG_MIGRATIONS } from './migrations.js';
import { CONFIG_FILE } from './open.js';

export { CONFIG_FILE };

/**
 * A configuration's schema version as one number: the legacy SQLite steps it went through (its
 * user_version) plus the Kysely migrations it recorded.
 */
export const CONFIG_SCHEMA_VERSION = LEGACY_SQLITE_VERSION + CONFIG_MIGRATIONS.length;

/** The embedded configuration file of a stopped server's data directory, for an offline backup. */
export function openEmbeddedConfigFile(dataDir: string): Database.Database {
  return new Database(path.join(dataDir, CONFIG_FILE), { fileMustExist: true });
}

/**
 * Copies the configuration with SQLite's online backup: a consistent copy taken in small steps, so
 * the server keeps answering (and writing) while it runs. Returns the copy's schema version.
 */
export async function backupConfig(db: Database.Database, file: string): Promise<number> {
  await db.backup(file);
  fs.chmodSync(file, 0o600); // key hashes, webhook secrets: the owner's only
  // The copy inherits write-ahead logging, which would make every later open (even a read-only
  // check, or a backup on read-only media) create -wal and -shm files beside it; a rollback
  // journal keeps it one self-contained file. The server turns WAL back on when it opens it.
  const copy = new Database(file);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  return checkConfigSnapshot(file);
}

/**
 * Checks that a configuration copy is whole and that this build can open it: a copy from a newer
 * build has migrations this one does not know. Returns its schema version.
 */
export function checkConfigSnapshot(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${file} is damaged (SQLite integrity check: ${String(integrity)})`);
    const legacy = db.pragma('user_version', { simple: true }) as number;
    const hasMigrations = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`).get() !== undefined;
    const names = hasMigrations ? db.prepare<[], { name: string }>(`SELECT name FROM kysely_migration`).all().map((row) => row.name) : [];
    const unknown = names.filter((name) => !CONFIG_MIGRATIONS.includes(name));
    const version = (names.length > 0 ? LEGACY_SQLITE_VERSION : legacy) + names.length;
    if (legacy > LEGACY_SQLITE_VERSION || unknown.length > 0) {
      throw new Error(`${file} comes from a newer Logstead (configuration migrations ${unknown.join(', ') || `past step ${legacy}`}, this one knows up to ${CONFIG_SCHEMA_VERSION}); restore it with that version or newer`);
    }
    return version;
  } finally {
    db.close();
  }
}

/**
 * Puts a configuration copy in place of the data directory's (whose server must be stopped). The
 * old write-ahead log goes too: left beside the new file, SQLite would replay it into it.
 */
export function restoreConfig(file: string, dataDir: string): void {
  const target = path.join(dataDir, CONFIG_FILE);
  const incoming = `${target}.restoring`;
  fs.copyFileSync(file, incoming);
  fs.chmodSync(incoming, 0o600);
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
  fs.renameSync(incoming, target);
}
