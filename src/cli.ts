import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { parseArgs } from 'node:util';
import { startLogstead } from './app.js';
import { AccountError, Accounts, type KeyType, UnknownOrganisation } from './accounts/accounts.js';
import { describeFirstStart } from './accounts/first-start.js';
import { describeStart } from './banner.js';
import { CONFIG_FILE, type ConfigKysely, openConfigDatabase } from './repository/open.js';
import { addMember, linkAddress, resetLink } from './people/member-command.js';
import { CONFIG_MIGRATIONS } from './repository/migrations.js';
import { loadSettings } from './settings.js';
import { backUp } from './backup/backup-command.js';
import { usageOf } from './usage/usage-command.js';
import { RetentionPolicy } from './retention/policy.js';
import { restore } from './backup/restore-command.js';
import { copyToClusterCommand } from './copy-to-cluster/copy-to-cluster-command.js';
import { BackupRefused, SERVER_LOGS_NOT_BACKED_UP } from './backup/write-backup.js';
import { LOG_SCHEMA_VERSION, migrateLogStore } from './store/migrations.js';
import { openLogExecutor } from './store/open-executor.js';
import { logTables } from './store/tables.js';
import { importMezmoCommand } from './import-mezmo/import-command.js';
import { ownerOnlyFromNowOn } from './lib/owner-only.js';

const USAGE = `Usage: logstead <command>

  serve                                       run the service (same as npm start)
  org create <name>                           create an organisation; prints its account and keys as JSON
  org list                                    list organisations
  org deactivate <account>                    refuse every key of an organisation
  org activate <account>                      accept its keys again
  org retention <account> <days|default>      keep an organisation's lines this many days (default:
                                              LOGSTEAD_RETENTION_DAYS); a running server hides older
                                              lines within a second
  org usage <account> [--from <unix>] [--to <unix>]
                                              lines and bytes per day, top apps and hosts, as JSON
                                              (default: all the organisation keeps, up to now)
  member add <account> <email> --role owner|admin|member|readonly
                                              add a member (or change their role); prints the
                                              one-time link to choose a password, as JSON
  member reset-link <email> [--account <id>]  a one-time link to choose a new password, as JSON
                                              (links: LOGSTEAD_PUBLIC_URL, else the running
                                              server's address; stderr says which)
  key create --account <id> --type ingestion|service [--name <name>]
                                              create a key; prints it once as JSON
  key list --account <id>                     list an organisation's keys (ids, never the keys)
  key revoke <key-id or key>                  revoke a key
  backup <dir>                                write a consistent backup of the configuration and the logs
                                              into a new directory (the server may be running)
  restore <dir> [--force]                     bring a backup back into the data directory of a stopped
                                              server (--force: replace the data it holds)
  migrate                                     bring the configuration and the log store up to this
                                              version's schema (each start does it too); prints
                                              what it applied. With embedded logs, the server must
                                              be stopped
  copy-to-cluster --database-url <postgres://...> --clickhouse-url <http://...> [--clickhouse-cluster <name>]
                                              copy a stopped embedded installation (LOGSTEAD_DATA_DIR)
                                              into a cluster's empty PostgreSQL and ClickHouse stores;
                                              prints counts as JSON
  import-mezmo --service-key <key> --account <account> [--url <url>] [--dry-run]
                                              copy views with their alerts, preset alerts, categories,
                                              groups and members from Mezmo's config API (default URL
                                              https://api.mezmo.com) into a local organisation; prints
                                              the plan, then the result, as JSON Lines (--dry-run: the
                                              plan only); a second run updates, never duplicates

Settings come from LOGSTEAD_* environment variables (see the README).`;

class UsageError extends Error {}

/**
 * Opens the configuration: the data directory's, or the PostgreSQL server's that
 * LOGSTEAD_DATABASE_URL names. Only `org create` may start a new data directory (to set up
 * organisations before the first start); anything else there is a mistaken directory.
 */
async function withAccounts<T>(work: (accounts: Accounts) => Promise<T>, mayCreate = false): Promise<T> {
  return withConfiguration((db) => work(new Accounts(db)), mayCreate);
}

async function withConfiguration<T>(work: (db: ConfigKysely) => Promise<T>, mayCreate = false): Promise<T> {
  const { dataDir, databaseUrl } = loadSettings();
  if (!databaseUrl && !fs.existsSync(path.join(dataDir, CONFIG_FILE))) {
    if (!mayCreate) {
      throw new UsageError(`No Logstead data directory at ${dataDir}. Run this where you run \`npm start\`, or set LOGSTEAD_DATA_DIR.`);
    }
    console.error(`Starting a new data directory at ${dataDir}`);
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  }
  const { database } = await openConfigDatabase({ dataDir, databaseUrl });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

const print = (value: unknown) => console.log(JSON.stringify(value));

/**
 * V8 sets the old generation's next limit after each full collection: the size alive then times a
 * factor, plus the young generation. Left to itself it picks the factor, up to 4, from its measured
 * speeds. At triple (this server's setting until issue 42) its heap reached 117-146 MiB under a
 * fleet of 32 senders for about 30 MB alive; doubling holds the fleet's peak 16-45 MiB lower at the
 * same CPU a line. A fifth held the least, but under 200 senders with small bodies V8 then marked
 * almost without pause: 152 full collections a load against 39 at double and 7 at triple, 1.9 µs a
 * line of main-thread GC against 0.5 and 0.1 (docs/performance.md, "V8's heap growth"). Set here,
 * at run time, so every way of starting the server has it; a command line's own
 * --heap-growing-percent is overridden.
 */
const HEAP_GROWING = '--heap-growing-percent=100';

async function serve(): Promise<void> {
  v8.setFlagsFromString(HEAP_GROWING);
  const settings = loadSettings();
  const running = await startLogstead(settings);
  // The real path: the data directory may be reached through a symbolic link.
  const dataDir = fs.realpathSync(settings.dataDir);
  console.log(describeStart(settings, running.url, dataDir, running.syslogPorts));
  if (running.firstStart) console.log(describeFirstStart(running.firstStart, dataDir));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting now, without waiting for open requests`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: finishing acknowledged writes, then exiting`);
    running.close().then(
      () => process.exit(0),
      (error) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function orgCommand(args: string[]): Promise<void> {
  const [action, value] = args;
  if (action === 'usage') {
    const { positionals, values } = parseArgs({ args: args.slice(1), allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' } } });
    if (positionals.length !== 1) throw new UsageError('Usage: logstead org usage <account> [--from <unix>] [--to <unix>]');
    const [account] = positionals;
    const { retentionDays } = loadSettings();
    const policy = await withAccounts((accounts) => RetentionPolicy.load(accounts, retentionDays));
    const retention = policy.knows(account) ? policy.inForce(account) : null;
    if (!retention) throw new UnknownOrganisation(account);
    print(await usageOf(loadSettings(), account, { from: values.from, to: values.to }, retention));
  } else if (action === 'create') {
    const name = args.slice(1).join(' ');
    if (!name) throw new UsageError('Usage: logstead org create <name>');
    print(await withAccounts((accounts) => accounts.createAccount(name), true));
  } else if (action === 'list') {
    const { retentionDays } = loadSettings();
    // The retention in force: the organisation's own, or the server's default (LOGSTEAD_RETENTION_DAYS).
    const [organisations, policy] = await withAccounts(async (accounts) => [await accounts.list(), await RetentionPolicy.load(accounts, retentionDays)] as const);
    print(organisations.map((org) => ({ ...org, ...policy.inForce(org.account) })));
  } else if (action === 'retention') {
    const days = args[2];
    if (!value || !days) throw new UsageError('Usage: logstead org retention <account> <days|default>');
    if (days !== 'default' && !/^\d+$/.test(days)) throw new AccountError(`Retention is a whole number of days, or "default", not "${days}".`);
    const own = days === 'default' ? null : Number(days);
    const found = await withAccounts((accounts) => accounts.setRetention(value, own));
    if (!found) throw new UnknownOrganisation(value);
    const policy = await withAccounts((accounts) => RetentionPolicy.load(accounts, loadSettings().retentionDays));
    print({ account: value, ...policy.inForce(value) });
  } else if (action === 'deactivate' || action === 'activate') {
    if (!value) throw new UsageError(`Usage: logstead org ${action} <account>`);
    const found = await withAccounts((accounts) => accounts.setActive(value, action === 'activate'));
    if (!found) throw new UnknownOrganisation(value);
    print({ account: value, active: action === 'activate' });
  } else {
    throw new UsageError(USAGE);
  }
}

/** Where one-time links point (member-command.ts, linkAddress), said on stderr. */
async function linkSettings() {
  const settings = loadSettings();
  const { publicUrl, from } = await linkAddress(settings);
  console.error(`The link's address, ${publicUrl}, is from ${from}.`);
  return { publicUrl, inviteHours: settings.inviteHours };
}

async function memberCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'add') {
    const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { role: { type: 'string' } } });
    if (positionals.length !== 2 || !values.role) throw new UsageError('Usage: logstead member add <account> <email> --role owner|admin|member|readonly');
    const [account, email] = positionals;
    const settings = await linkSettings();
    print(await withConfiguration((db) => addMember(db, { account, email, role: values.role!.toLowerCase() }, settings)));
  } else if (action === 'reset-link') {
    const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { account: { type: 'string' } } });
    if (positionals.length !== 1) throw new UsageError('Usage: logstead member reset-link <email> [--account <id>]');
    const settings = await linkSettings();
    print(await withConfiguration((db) => resetLink(db, { email: positionals[0], account: values.account }, settings)));
  } else {
    throw new UsageError(USAGE);
  }
}

async function keyCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { account: { type: 'string' }, type: { type: 'string' }, name: { type: 'string' } },
    });
    if (!values.account || !values.type) {
      throw new UsageError('Usage: logstead key create --account <id> --type ingestion|service [--name <name>]');
    }
    print(await withAccounts((accounts) => accounts.createKey(values.account!, values.type as KeyType, values.name ?? '')));
  } else if (action === 'list') {
    const { values } = parseArgs({ args: rest, options: { account: { type: 'string' } } });
    if (!values.account) throw new UsageError('Usage: logstead key list --account <id>');
    print(await withAccounts((accounts) => accounts.listKeys(values.account!)));
  } else if (action === 'revoke') {
    const [idOrKey] = rest;
    if (!idOrKey) throw new UsageError('Usage: logstead key revoke <key-id or key>');
    if (!(await withAccounts((accounts) => accounts.revokeKey(idOrKey)))) throw new AccountError('No active key matches that id or key.');
    print({ revoked: true });
  } else {
    throw new UsageError(USAGE);
  }
}

async function backupCommand(args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('Usage: logstead backup <dir>');
  const { dataDir, clickhouseUrl } = loadSettings();
  if (clickhouseUrl) throw new BackupRefused(SERVER_LOGS_NOT_BACKED_UP);
  // Resolved here: the server that writes it may run in another working directory.
  const manifest = await backUp(dataDir, path.resolve(positionals[0]));
  console.error(`Backed up ${manifest.lines} lines and the configuration of ${dataDir} to ${path.resolve(positionals[0])}`);
  print(manifest);
}

async function restoreCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean' } } });
  if (positionals.length !== 1) throw new UsageError('Usage: logstead restore <dir> [--force]');
  const { dataDir, clickhouseUrl } = loadSettings();
  if (clickhouseUrl) throw new BackupRefused(SERVER_LOGS_NOT_BACKED_UP);
  const restored = await restore(dataDir, path.resolve(positionals[0]), { force: values.force ?? false });
  console.error(`Restored ${restored.lines} lines and the configuration from ${restored.from} (backed up ${restored.createdAt}) into ${dataDir}; start the server as usual`);
  print(restored);
}

async function migrateCommand(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError('Usage: logstead migrate');
  const settings = loadSettings();
  if (!fs.existsSync(path.join(settings.dataDir, CONFIG_FILE))) console.error(`Starting a new data directory at ${settings.dataDir}`);
  fs.mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const { database, applied: config } = await openConfigDatabase(settings);
  await database.close();
  const executor = await openLogExecutor(settings);
  let logs;
  try {
    logs = await migrateLogStore(executor, logTables(settings.clickhouseCluster));
  } finally {
    await executor.close();
  }
  for (const version of config) console.error(`configuration: applied migration ${version}`);
  for (const step of logs) console.error(`log store: applied migration ${step.version} (${step.name})`);
  if (config.length === 0 && logs.length === 0) console.error('Nothing to migrate: the configuration and the log store are up to date.');
  print({
    config: { version: CONFIG_MIGRATIONS[CONFIG_MIGRATIONS.length - 1], applied: config },
    logs: { version: LOG_SCHEMA_VERSION, applied: logs },
  });
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  // What any command writes in the data directory is its owner's only (lib/owner-only.ts).
  ownerOnlyFromNowOn();
  if (command === 'serve') return serve();
  if (command === 'org') return orgCommand(args);
  if (command === 'key') return keyCommand(args);
  if (command === 'member') return memberCommand(args);
  if (command === 'backup') return backupCommand(args);
  if (command === 'restore') return restoreCommand(args);
  if (command === 'migrate') return migrateCommand(args);
  if (command === 'copy-to-cluster') return copyToClusterCommand(args);
  if (command === 'import-mezmo') {
    return importMezmoCommand(args, { withConfiguration: (work) => withConfiguration(work), links: linkSettings, usageError: (message) => new UsageError(message) });
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return;
  }
  throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
}
