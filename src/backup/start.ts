import type { FastifyBaseLogger } from 'fastify';
import type Database from 'better-sqlite3';
import { type Accounts, UnknownOrganisation } from '../accounts/accounts.js';
import { errors } from '../http/errors.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import type { SqlExecutor } from '../store/executor.js';
import type { UsageReports } from '../usage/usage.js';
import { serveControlSocket } from './control-socket.js';
import { BackupRefused, SERVER_LOGS_NOT_BACKED_UP, SHARED_CONFIG_NOT_BACKED_UP, writeBackup } from './write-backup.js';

export interface BackupDeps {
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl'>;
  executor: SqlExecutor;
  /** The embedded configuration file; absent on PostgreSQL, which pg_dump backs up. */
  sqlite: Database.Database | undefined;
  accounts: Accounts;
  usage: UsageReports;
  log: FastifyBaseLogger;
}

/**
 * The data directory's control socket, through which `logstead backup` and `logstead org usage`
 * reach this server (it holds the log engine, which admits one process per directory). Started
 * after the log store is open (its lock proves this process owns the directory) and before the
 * server says it is ready; closing lets a backup under way finish.
 */
export async function startBackupControl(deps: BackupDeps): Promise<Subsystem> {
  const { settings } = deps;
  const control = await serveControlSocket(
    settings.dataDir,
    {
      backup: async (dir) => {
        if (settings.clickhouseUrl) throw new BackupRefused(SERVER_LOGS_NOT_BACKED_UP);
        if (!deps.sqlite) throw new BackupRefused(SHARED_CONFIG_NOT_BACKED_UP);
        return writeBackup({ executor: deps.executor, configDb: deps.sqlite, dataDir: settings.dataDir }, dir);
      },
      usage: async (account, range) => {
        if (!(await deps.accounts.list()).some((org) => org.account === account)) throw errors.notFound(new UnknownOrganisation(account).message);
        return deps.usage.report(account, range);
      },
    },
    deps.log,
  );
  return { close: () => control.close() };
}
