import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILE } from '../accounts/first-start.js';
import type Database from 'better-sqlite3';
import { CONFIG_FILE, backupConfig } from '../repository/snapshot.js';
import type { SqlExecutor } from '../store/executor.js';
import { backupLogDatabase, engineVersion } from '../store/snapshot.js';
import { SECRET_KEY_FILE } from '../repository/secret-box.js';

/** Where the log snapshot sits inside a backup directory. */
export const LOGS_SNAPSHOT = 'clickhouse';

/**
 * Small files of the data directory worth keeping: the key that signs e-mailed export links (so
 * links stay verifiable) and the default organisation's first keys, when the operator kept them,
 * and the secret key file (without it, sealed secrets such as an archive's cannot be opened).
 * exports/ is left out: its files are temporary downloads that expire within a day, and one being
 * written would be copied half-done.
 */
export const SMALL_FILES = ['export-link.key', CREDENTIALS_FILE, SECRET_KEY_FILE];

/** A backup the operator asked for that cannot be taken as asked; the message says what to do. */
export class BackupRefused extends Error {}

/**
 * Why `logstead backup` and `restore` refuse when the lines are on a ClickHouse server: the
 * engine's BACKUP would write to the server's disk, not here, and a server has its own tools.
 */
export const SERVER_LOGS_NOT_BACKED_UP =
  "With LOGSTEAD_CLICKHOUSE_URL the log lines are on the ClickHouse server: back them up with the server's own BACKUP (or clickhouse-backup). `logstead backup` and `restore` cover the embedded log store only.";

/** Why they refuse when the configuration is on a PostgreSQL server. */
export const SHARED_CONFIG_NOT_BACKED_UP =
  "With LOGSTEAD_DATABASE_URL the configuration is on the PostgreSQL server: back it up with pg_dump. `logstead backup` and `restore` cover the embedded configuration only.";

export interface BackupSources {
  executor: SqlExecutor;
  configDb: Database.Database;
  dataDir: string;
}

export interface WrittenBackup {
  contents: string[];
  configSchemaVersion: number;
  engineVersion: string;
}

const isInside = (child: string, parent: string) => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/** Makes the (new or empty) target directory; refuses anything that could mix or lose data. */
function prepareTarget(target: string, dataDir: string): void {
  if (!path.isAbsolute(target)) throw new BackupRefused(`The backup directory must be an absolute path, got "${target}".`);
  if (isInside(target, dataDir) || isInside(dataDir, target)) {
    throw new BackupRefused(`Choose a backup directory outside the data directory ${dataDir}: wiping one would take the other.`);
  }
  if (fs.existsSync(target)) {
    if (!fs.statSync(target).isDirectory()) throw new BackupRefused(`${target} exists and is not a directory.`);
    if (fs.readdirSync(target).length > 0) throw new BackupRefused(`${target} is not empty; back up into a new or empty directory.`);
  }
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
}

/**
 * Writes the logs, then the configuration, then the small files into `target`. Logs first: a line's
 * meta types are registered before the line is stored, so the later configuration copy has the
 * types of every line in the earlier log snapshot. Everything but the manifest; on failure the
 * target is emptied again, so no half backup is left to be mistaken for one.
 */
export async function writeBackup(sources: BackupSources, target: string): Promise<WrittenBackup> {
  prepareTarget(target, sources.dataDir);
  try {
    await backupLogDatabase(sources.executor, path.join(target, LOGS_SNAPSHOT));
    const configSchemaVersion = await backupConfig(sources.configDb, path.join(target, CONFIG_FILE));
    const contents = [LOGS_SNAPSHOT, CONFIG_FILE];
    for (const name of SMALL_FILES) {
      const source = path.join(sources.dataDir, name);
      if (!fs.existsSync(source)) continue;
      fs.copyFileSync(source, path.join(target, name));
      fs.chmodSync(path.join(target, name), 0o600);
      contents.push(name);
    }
    return { contents, configSchemaVersion, engineVersion: await engineVersion(sources.executor) };
  } catch (error) {
    for (const entry of fs.readdirSync(target)) fs.rmSync(path.join(target, entry), { recursive: true, force: true });
    throw error;
  }
}
