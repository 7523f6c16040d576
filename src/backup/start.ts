import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type Database from 'better-sqlite3';
import { type Accounts, UnknownOrganisation } from '../accounts/accounts.js';
import { errors } from '../http/errors.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import type { SqlExecutor } from '../store/executor.js';
import type { UsageReports } from '../usage/usage.js';
import { BACKUP_PATH, CONFIG_CHANGED_PATH, PUBLIC_URL_PATH, USAGE_PATH, serveControlSocket } from '../http/control-socket.js';
import { BackupRefused, SERVER_LOGS_NOT_BACKED_UP, SHARED_CONFIG_NOT_BACKED_UP, writeBackup } from './write-backup.js';

export interface BackupDeps {
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'publicUrl'>;
  /** Where this server's links point: LOGSTEAD_PUBLIC_URL, or the address it listens on. */
  publicUrl: () => string;
  executor: SqlExecutor;
  /** The embedded configuration file; absent on PostgreSQL, which pg_dump backs up. */
  sqlite: Database.Database | undefined;
  accounts: Accounts;
  usage: UsageReports;
  log: FastifyBaseLogger;
  /**
   * Tells this process's listeners (the alert rules) that an organisation's views and presets
   * changed in the database by another process: an embedded server never re-reads them on its own.
   */
  configChanged: (account: string) => Promise<void>;
}

/**
 * The data directory's control socket, through which `logstead backup`, `logstead org usage`,
 * `logstead member` (for the address its links point at) and `logstead import-mezmo` reach this server (it holds the log engine, which admits one process per directory). Started
 * after the log store is open (its lock proves this process owns the directory) and before the
 * server says it is ready; closing lets a backup under way finish.
 */
export async function startBackupControl(deps: BackupDeps): Promise<Subsystem> {
  const { settings } = deps;
  let backingUp = false;
  const backup = async (body: Record<string, unknown> | undefined) => {
    if (typeof body?.dir !== 'string' || !path.isAbsolute(body.dir)) throw errors.invalidParameter('Send {"dir": "<absolute path>"}.');
    if (backingUp) throw errors.backupRefused('A backup is already being taken; try again once it has finished.');
    backingUp = true;
    try {
      if (settings.clickhouseUrl) throw new BackupRefused(SERVER_LOGS_NOT_BACKED_UP);
      if (!deps.sqlite) throw new BackupRefused(SHARED_CONFIG_NOT_BACKED_UP);
      return await writeBackup({ executor: deps.executor, configDb: deps.sqlite, dataDir: settings.dataDir }, body.dir);
    } catch (error) {
      if (error instanceof BackupRefused) throw errors.backupRefused(error.message);
      deps.log.error({ err: error }, 'backup failed');
      throw errors.backupFailed(error instanceof Error ? error.message : String(error));
    } finally {
      backingUp = false;
    }
  };
  const usage = async (body: Record<string, unknown> | undefined) => {
    const optional = (value: unknown) => (typeof value === 'string' ? value : undefined);
    if (typeof body?.account !== 'string') throw errors.invalidParameter('Send {"account": "<account id>", "from"?: "<unix>", "to"?: "<unix>"}.');
    if (!(await deps.accounts.list()).some((org) => org.account === body.account)) throw errors.notFound(new UnknownOrganisation(body.account).message);
    return deps.usage.report(body.account, { from: optional(body.from), to: optional(body.to) }, null); // the operator sees everything
  };
  const configChanged = async (body: Record<string, unknown> | undefined) => {
    if (typeof body?.account !== 'string') throw errors.invalidParameter('Send {"account": "<account id>"}.');
    if (!(await deps.accounts.list()).some((org) => org.account === body.account)) throw errors.notFound(new UnknownOrganisation(body.account).message);
    await deps.configChanged(body.account);
    return { reloaded: true };
  };
  // The address the browser reaches this server at, which a command run without this server's
  // environment (another port, LOGSTEAD_PUBLIC_URL) cannot know.
  const publicUrl = async () => ({ publicUrl: deps.publicUrl(), from: settings.publicUrl ? 'LOGSTEAD_PUBLIC_URL' : 'listening address' });
  const control = await serveControlSocket(
    settings.dataDir,
    { [BACKUP_PATH]: backup, [USAGE_PATH]: usage, [CONFIG_CHANGED_PATH]: configChanged, [PUBLIC_URL_PATH]: publicUrl },
    deps.log,
  );
  return { close: () => control.close() };
}
