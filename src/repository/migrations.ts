import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';
import type { ConfigDialect } from './tables.js';

/**
 * The configuration schema, as numbered migrations that Kysely's migrator applies in order and
 * records in `kysely_migration`, the same for SQLite and PostgreSQL. The few words the dialects
 * spell differently are filled in per dialect; everything else is one text. Append new steps;
 * never edit one that has shipped.
 */
interface DialectWords {
  /** An auto-numbered integer primary key. */
  serial: string;
  /** Unix milliseconds. */
  ms: string;
  bytes: string;
  /** For the rare step whose statements differ, not only their words (a CHECK changed). */
  dialect: ConfigDialect;
}

const WORDS: Record<ConfigDialect, DialectWords> = {
  sqlite: { serial: 'INTEGER PRIMARY KEY', ms: 'INTEGER', bytes: 'BLOB', dialect: 'sqlite' },
  postgres: { serial: 'BIGSERIAL PRIMARY KEY', ms: 'BIGINT', bytes: 'BYTEA', dialect: 'postgres' },
};

type Step = (words: DialectWords) => string[];

/**
 * Step 1 is the schema the embedded configuration had reached before it moved to Kysely (the legacy
 * steps in legacy-sqlite-migrations.ts end there), so an upgraded data directory already has it
 * and only a new database creates it: hence IF NOT EXISTS.
 */
const schema: Step = ({ serial, ms }) => [
  `CREATE TABLE IF NOT EXISTS accounts (
     account        TEXT PRIMARY KEY,
     name           TEXT NOT NULL,
     active         INTEGER NOT NULL DEFAULT 1,
     created_at     TEXT NOT NULL,
     retention_days INTEGER,
     deactivated_at ${ms}
   )`,
  `CREATE TABLE IF NOT EXISTS api_keys (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     type       TEXT NOT NULL CHECK (type IN ('ingestion', 'service')),
     name       TEXT NOT NULL DEFAULT '',
     key_hash   TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   )`,
  `CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys(account)`,
  `CREATE TABLE IF NOT EXISTS meta_field_types (
     account   TEXT NOT NULL,
     path      TEXT NOT NULL,
     type      TEXT NOT NULL,
     first_day TEXT NOT NULL DEFAULT '',
     PRIMARY KEY (account, path)
   )`,
  `CREATE TABLE IF NOT EXISTS categories (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     type       TEXT NOT NULL CHECK (type IN ('views', 'boards', 'screens')),
     name       TEXT NOT NULL,
     created_at TEXT NOT NULL
   )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS categories_by_name ON categories(account, type, lower(name))`,
  `CREATE TABLE IF NOT EXISTS presets (
     presetid    TEXT PRIMARY KEY,
     account     TEXT NOT NULL REFERENCES accounts(account),
     name        TEXT NOT NULL,
     channels    TEXT NOT NULL,
     created_at  TEXT NOT NULL,
     modified_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS presets_by_account ON presets(account)`,
  `CREATE TABLE IF NOT EXISTS views (
     viewid       TEXT PRIMARY KEY,
     account      TEXT NOT NULL REFERENCES accounts(account),
     name         TEXT NOT NULL,
     filters      TEXT NOT NULL,
     category_ids TEXT NOT NULL,
     presetid     TEXT REFERENCES presets(presetid) ON DELETE SET NULL,
     channels     TEXT NOT NULL,
     created_at   TEXT NOT NULL,
     modified_at  TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS views_by_account ON views(account)`,
  `CREATE TABLE IF NOT EXISTS alert_windows (
     viewid          TEXT NOT NULL,
     alertid         TEXT NOT NULL,
     account         TEXT NOT NULL,
     window_start    ${ms} NOT NULL,
     count           ${ms} NOT NULL,
     fired_immediate INTEGER NOT NULL DEFAULT 0,
     samples         TEXT NOT NULL DEFAULT '[]',
     PRIMARY KEY (viewid, alertid)
   )`,
  `CREATE TABLE IF NOT EXISTS view_activity (
     viewid       TEXT PRIMARY KEY,
     account      TEXT NOT NULL,
     last_line_at ${ms} NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS alert_fires (
     id           ${serial},
     account      TEXT NOT NULL,
     viewid       TEXT NOT NULL,
     alertid      TEXT NOT NULL,
     window_start ${ms} NOT NULL,
     kind         TEXT NOT NULL,
     matches      ${ms} NOT NULL,
     fired_at     ${ms} NOT NULL,
     UNIQUE (viewid, alertid, window_start)
   )`,
  `CREATE TABLE IF NOT EXISTS deliveries (
     id              ${serial},
     account         TEXT NOT NULL,
     fire_id         ${ms} REFERENCES alert_fires(id),
     integration     TEXT NOT NULL,
     target          TEXT NOT NULL,
     message         TEXT NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts        INTEGER NOT NULL DEFAULT 0,
     next_attempt_at ${ms} NOT NULL,
     created_at      ${ms} NOT NULL,
     updated_at      ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries(status, next_attempt_at)`,
  `CREATE INDEX IF NOT EXISTS deliveries_by_account ON deliveries(account, id)`,
  `CREATE TABLE IF NOT EXISTS delivery_attempts (
     id          ${serial},
     delivery_id ${ms} NOT NULL REFERENCES deliveries(id),
     at          ${ms} NOT NULL,
     outcome     TEXT NOT NULL,
     detail      TEXT NOT NULL,
     status_code INTEGER
   )`,
  `CREATE INDEX IF NOT EXISTS attempts_by_delivery ON delivery_attempts(delivery_id)`,
  `CREATE TABLE IF NOT EXISTS sessions (
     id_hash    TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     key_id     TEXT NOT NULL DEFAULT '',
     csrf       TEXT NOT NULL,
     created_at ${ms} NOT NULL,
     expires_at ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS sessions_by_key ON sessions(key_id)`,
  `CREATE INDEX IF NOT EXISTS sessions_by_account ON sessions(account)`,
];

/**
 * Step 2: what several nodes need to share. A delivery is claimed for a while by the node that
 * sends it, so another takes it over if that node dies; export files and the key that signs their
 * links live here instead of one node's data directory; node starts number the nodes for line ids.
 */
const sharedByNodes: Step = ({ serial, ms, bytes }) => [
  `ALTER TABLE deliveries ADD COLUMN claimed_until ${ms}`,
  `ALTER TABLE deliveries ADD COLUMN claimed_by INTEGER`,
  `ALTER TABLE deliveries ADD COLUMN claim_token TEXT`,
  `CREATE TABLE IF NOT EXISTS secrets (
     name  TEXT PRIMARY KEY,
     value TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS export_files (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL,
     content    ${bytes} NOT NULL,
     created_at ${ms} NOT NULL,
     expires_at ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS export_files_by_expiry ON export_files(expires_at)`,
  `CREATE TABLE IF NOT EXISTS node_starts (
     id         ${serial},
     started_at ${ms} NOT NULL
   )`,
];

/**
 * Step 3: people. Members sign in as themselves with a role; groups carry access scopes; one-time
 * links invite members and reset passwords; sign-on attempts hold what an OpenID sign-in must
 * check when the provider sends the person back; the audit trail records every change. A session
 * belongs to a service key or to a member (member_id, with key_id left empty).
 */
const people: Step = ({ serial, ms }) => [
  `CREATE TABLE IF NOT EXISTS members (
     id            TEXT PRIMARY KEY,
     account       TEXT NOT NULL REFERENCES accounts(account),
     email         TEXT NOT NULL,
     role          TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'readonly')),
     password_hash TEXT,
     signed_in_at  ${ms},
     created_at    ${ms} NOT NULL,
     modified_at   ${ms} NOT NULL,
     UNIQUE (account, email)
   )`,
  `CREATE INDEX IF NOT EXISTS members_by_email ON members(email)`,
  `CREATE TABLE IF NOT EXISTS member_groups (
     id            TEXT PRIMARY KEY,
     account       TEXT NOT NULL REFERENCES accounts(account),
     name          TEXT NOT NULL,
     access_scopes TEXT NOT NULL,
     created_at    ${ms} NOT NULL,
     modified_at   ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS member_groups_by_account ON member_groups(account)`,
  `CREATE TABLE IF NOT EXISTS group_members (
     group_id  TEXT NOT NULL REFERENCES member_groups(id),
     member_id TEXT NOT NULL REFERENCES members(id),
     PRIMARY KEY (group_id, member_id)
   )`,
  `CREATE INDEX IF NOT EXISTS group_members_by_member ON group_members(member_id)`,
  `CREATE TABLE IF NOT EXISTS one_time_links (
     token_hash TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     purpose    TEXT NOT NULL CHECK (purpose IN ('invite', 'reset', 'owner')),
     member_id  TEXT,
     created_at ${ms} NOT NULL,
     expires_at ${ms} NOT NULL,
     used_at    ${ms}
   )`,
  `CREATE TABLE IF NOT EXISTS sign_on_attempts (
     id_hash       TEXT PRIMARY KEY,
     state         TEXT NOT NULL,
     nonce         TEXT NOT NULL,
     code_verifier TEXT NOT NULL,
     expires_at    ${ms} NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS audit_records (
     id          ${serial},
     account     TEXT NOT NULL,
     at          ${ms} NOT NULL,
     actor       TEXT NOT NULL,
     address     TEXT NOT NULL,
     action      TEXT NOT NULL,
     resource    TEXT NOT NULL,
     resource_id TEXT NOT NULL,
     before_json TEXT,
     after_json  TEXT
   )`,
  `CREATE INDEX IF NOT EXISTS audit_by_account ON audit_records(account, id)`,
  `ALTER TABLE sessions ADD COLUMN member_id TEXT`,
  `CREATE INDEX IF NOT EXISTS sessions_by_member ON sessions(member_id)`,
  `ALTER TABLE views ADD COLUMN access_scope TEXT`,
  `ALTER TABLE views ADD COLUMN saved_by TEXT`,
];

/**
 * Step 4: archiving (src/archive). One archive configuration per organisation, its secret sealed
 * (repository/secret-box.ts); `passed_to` and `eligible_before` are where the archiver's last pass left
 * off, so a pass after a restart, or on another node, picks up exactly the lines the last did not.
 * Each archive file is a row: the lines it holds are named by their hour and arrival window, so a
 * retried write rewrites the same lines to the same object, and the row records what was written.
 */
const archive: Step = ({ serial, ms }) => [
  `CREATE TABLE IF NOT EXISTS archive_configs (
     account          TEXT PRIMARY KEY,
     integration      TEXT NOT NULL,
     bucket           TEXT NOT NULL,
     endpoint         TEXT,
     region           TEXT,
     access_key       TEXT NOT NULL,
     secret_sealed    TEXT NOT NULL,
     force_path_style INTEGER NOT NULL DEFAULT 0,
     configured_at    ${ms} NOT NULL,
     updated_at       ${ms} NOT NULL,
     passed_to        ${ms} NOT NULL,
     eligible_before  ${ms} NOT NULL DEFAULT 0
   )`,
  `CREATE TABLE IF NOT EXISTS archive_files (
     id              ${serial},
     account         TEXT NOT NULL,
     hour            ${ms} NOT NULL,
     seq             INTEGER NOT NULL,
     object_key      TEXT NOT NULL,
     arrival_from    ${ms} NOT NULL,
     arrival_to      ${ms} NOT NULL,
     planned_lines   INTEGER NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'written')),
     lines           INTEGER,
     bytes           INTEGER,
     attempts        INTEGER NOT NULL DEFAULT 0,
     next_attempt_at ${ms} NOT NULL,
     last_error      TEXT,
     claimed_until   ${ms},
     claimed_by      INTEGER,
     claim_token     TEXT,
     created_at      ${ms} NOT NULL,
     written_at      ${ms},
     UNIQUE (account, hour, seq)
   )`,
  `CREATE INDEX IF NOT EXISTS archive_files_due ON archive_files(status, next_attempt_at)`,
  `CREATE TABLE IF NOT EXISTS archive_restores (
     id             TEXT PRIMARY KEY,
     account        TEXT NOT NULL,
     from_ms        ${ms} NOT NULL,
     to_ms          ${ms} NOT NULL,
     query          TEXT NOT NULL,
     keep_until     ${ms} NOT NULL,
     status         TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     lines_found    INTEGER NOT NULL DEFAULT 0,
     lines_restored INTEGER NOT NULL DEFAULT 0,
     error          TEXT,
     created_at     ${ms} NOT NULL,
     finished_at    ${ms}
   )`,
];

/**
 * Step 5: what an organisation lets in (issue 28). Exclusion rules (Mezmo's
 * /v1/config/ingestion/exclusions), the lines each excluded per hour (usage counts them apart from
 * what is stored), whether ingestion is suspended with the confirmation token a suspension waits
 * on, and the index-rate alert with the last period it fired for (one node claims each period).
 */
const ingestionControls: Step = ({ ms }) => [
  `CREATE TABLE IF NOT EXISTS exclusion_rules (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     title      TEXT NOT NULL,
     active     INTEGER NOT NULL,
     indexonly  INTEGER NOT NULL,
     apps_json  TEXT NOT NULL,
     hosts_json TEXT NOT NULL,
     query      TEXT NOT NULL,
     created_at ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS exclusion_rules_by_account ON exclusion_rules(account)`,
  `CREATE TABLE IF NOT EXISTS exclusion_counts (
     account TEXT NOT NULL,
     rule_id TEXT NOT NULL,
     hour    ${ms} NOT NULL,
     lines   ${ms} NOT NULL,
     bytes   ${ms} NOT NULL,
     PRIMARY KEY (account, rule_id, hour)
   )`,
  `CREATE TABLE IF NOT EXISTS ingestion_control (
     account          TEXT PRIMARY KEY REFERENCES accounts(account),
     suspended        INTEGER NOT NULL DEFAULT 0,
     token_hash       TEXT,
     token_expires_at ${ms},
     changed_at       ${ms} NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS index_rate_alerts (
     account      TEXT PRIMARY KEY REFERENCES accounts(account),
     config_json  TEXT NOT NULL,
     fired_period ${ms}
   )`,
];

/**
 * Step 6: parsing at ingest (issue 28): the first type each organisation's format-parsed fields were seen
 * with (numbers stay numbers only while a field's first value was one), and its custom parsing rules.
 */
const parsers: Step = ({ ms }) => [
  `CREATE TABLE IF NOT EXISTS parsed_field_types (
     account TEXT NOT NULL,
     name    TEXT NOT NULL,
     type    TEXT NOT NULL,
     PRIMARY KEY (account, name)
   )`,
  `CREATE TABLE IF NOT EXISTS parsers (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     name       TEXT NOT NULL,
     apps       TEXT NOT NULL,
     hosts      TEXT NOT NULL,
     query      TEXT NOT NULL,
     pattern    TEXT NOT NULL,
     types      TEXT NOT NULL,
     created_at ${ms} NOT NULL,
     updated_at ${ms} NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS parsers_by_account ON parsers(account)`,
];

/** archive_restores' columns before step 7, which its SQLite rebuild copies. */
const RESTORE_COLUMNS_0004 = 'id, account, from_ms, to_ms, query, keep_until, status, lines_found, lines_restored, error, created_at, finished_at';

/**
 * Step 7: restores that can be cancelled and survive their node (src/archive/restores.ts). A
 * restore may now be `cancelled`; it records the reader's access scope (a node taking it over
 * reads with it), which node runs it and when that node last said so (`claimed_by`,
 * `heartbeat_at`), and how far it has come (`position_ts`, `position_id`: the last archived line
 * it handled), so another node carries on from there. PostgreSQL changes the CHECK in place;
 * SQLite cannot, so the table is rebuilt in one transaction (a cut leaves the old table whole).
 */
const restoreControl: Step = ({ ms, dialect }) => {
  const columns = `
     scope_json     TEXT,
     claimed_by     TEXT,
     heartbeat_at   ${ms},
     position_ts    ${ms},
     position_id    TEXT`;
  // A restore running when this step runs was started by a build that recorded no scope and no
  // heartbeat: nothing can carry it on safely, so it ends as failed, to be started again.
  const interrupted = `UPDATE archive_restores SET status = 'failed', error = 'interrupted by an upgrade; start the restore again (nothing is loaded twice)', finished_at = created_at WHERE status = 'running'`;
  if (dialect === 'postgres') {
    return [
      `ALTER TABLE archive_restores DROP CONSTRAINT IF EXISTS archive_restores_status_check`,
      `ALTER TABLE archive_restores ADD CONSTRAINT archive_restores_status_check CHECK (status IN ('running', 'done', 'failed', 'cancelled'))`,
      ...columns.split(',').map((column) => `ALTER TABLE archive_restores ADD COLUMN ${column.trim()}`),
      `CREATE INDEX IF NOT EXISTS archive_restores_running ON archive_restores(status, heartbeat_at)`,
      interrupted,
    ];
  }
  return [
    'BEGIN',
    `CREATE TABLE archive_restores_0007 (
     id             TEXT PRIMARY KEY,
     account        TEXT NOT NULL,
     from_ms        ${ms} NOT NULL,
     to_ms          ${ms} NOT NULL,
     query          TEXT NOT NULL,
     keep_until     ${ms} NOT NULL,
     status         TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
     lines_found    INTEGER NOT NULL DEFAULT 0,
     lines_restored INTEGER NOT NULL DEFAULT 0,
     error          TEXT,
     created_at     ${ms} NOT NULL,
     finished_at    ${ms},${columns}
   )`,
    `INSERT INTO archive_restores_0007 (${RESTORE_COLUMNS_0004}) SELECT ${RESTORE_COLUMNS_0004} FROM archive_restores`,
    'DROP TABLE archive_restores',
    'ALTER TABLE archive_restores_0007 RENAME TO archive_restores',
    `CREATE INDEX IF NOT EXISTS archive_restores_running ON archive_restores(status, heartbeat_at)`,
    interrupted,
    'COMMIT',
  ];
};

/** A restore keeps the viewer's menus (hosts, apps, levels, tags) beside its query, as JSON. */
const restoreFilters: Step = () => ['ALTER TABLE archive_restores ADD COLUMN filters_json TEXT'];

/**
 * Who set what (issue 39): the member a service key was made by, whose role and scope bound it;
 * and for each delivery, the credential that set its target (`member:<id>` or a key's id) and the
 * scopes that bound what it carries, so that a removed member's deliveries stop and the delivery
 * log shows a scoped member only what lies inside their scope.
 */
const setters: Step = () => [
  'ALTER TABLE api_keys ADD COLUMN made_by TEXT',
  'ALTER TABLE deliveries ADD COLUMN set_by TEXT',
  'ALTER TABLE deliveries ADD COLUMN scope_json TEXT',
];

/**
 * Step 10: a group's exact lists of app and host names (JSON arrays of strings), beside its
 * searches: its members see only lines whose app and host are in them, where a list is not empty.
 */
const groupLists: Step = () => [
  `ALTER TABLE member_groups ADD COLUMN apps TEXT NOT NULL DEFAULT '[]'`,
  `ALTER TABLE member_groups ADD COLUMN hosts TEXT NOT NULL DEFAULT '[]'`,
];

/**
 * An exclusion rule's filter version: it goes up whenever the rule's apps, hosts or query change,
 * and each hour's count keeps the lowest version it was counted under (-1 for counts from before
 * versions were kept), so a count can be told to be of the rule as it now is. A reader with an
 * access scope is shown only those (GET /v1/usage/excluded): what a rule once matched is not
 * what it matches now.
 */
const exclusionFilterVersion: Step = () => [
  'ALTER TABLE exclusion_rules ADD COLUMN filter_version INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE exclusion_counts ADD COLUMN filter_version INTEGER NOT NULL DEFAULT -1',
];

/**
 * Step 12: the open incidents of channels that auto-resolve (OpsGenie, VictorOps): one row per
 * channel that fired and has not been closed, with the current resolve window's start and count.
 * Shared like the alert windows, so that one node closes it once, after any restart.
 */
const alertIncidents: Step = ({ ms }) => [
  `CREATE TABLE IF NOT EXISTS alert_incidents (
     viewid       TEXT NOT NULL,
     alertid      TEXT NOT NULL,
     account      TEXT NOT NULL,
     opened_at    ${ms} NOT NULL,
     window_start ${ms} NOT NULL,
     count        ${ms} NOT NULL DEFAULT 0,
     PRIMARY KEY (viewid, alertid)
   )`,
];

/**
 * Boards (issue 40): named collections of graphs, in a category of type `boards`. The graphs are
 * kept whole as JSON, as a view keeps its channels: they are read and written with their board.
 */
const boards: Step = () => [
  `CREATE TABLE IF NOT EXISTS boards (
     board_id    TEXT PRIMARY KEY,
     account     TEXT NOT NULL REFERENCES accounts(account),
     name        TEXT NOT NULL,
     category_id TEXT,
     graphs      TEXT NOT NULL,
     created_at  TEXT NOT NULL,
     modified_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS boards_by_account ON boards(account)`,
];

/**
 * Steps already in place on SQLite although unrecorded (a step is recorded after its statements
 * run, and SQLite runs them one by one): the rebuild of step 7 is not done twice.
 */
const SQLITE_DONE: Record<string, (db: Kysely<any>) => Promise<boolean>> = {
  '0007_restore_control': async (db) => (await sql<{ name: string }>`SELECT name FROM pragma_table_info('archive_restores') WHERE name = 'heartbeat_at'`.execute(db)).rows.length > 0,
};

const steps: Record<string, Step> = {
  '0001_schema': schema,
  '0002_shared_by_nodes': sharedByNodes,
  '0003_people': people,
  '0004_archive': archive,
  '0005_ingestion_controls': ingestionControls,
  '0006_parsers': parsers,
  '0007_restore_control': restoreControl,
  '0008_restore_filters': restoreFilters,
  '0009_setters': setters,
  '0010_group_lists': groupLists,
  '0011_exclusion_filter_version': exclusionFilterVersion,
  '0012_alert_incidents': alertIncidents,
  '0013_boards': boards,
};

/** The migration names this build knows, in order: a database that recorded others is newer. */
export const CONFIG_MIGRATIONS = Object.keys(steps);

/**
 * Whether an `ALTER TABLE t ADD COLUMN c` has already been applied. SQLite runs a step's statements
 * one by one (Kysely does not wrap its DDL in a transaction), so a step cut short is run again at
 * the next start; its CREATEs say IF NOT EXISTS, and this covers the column additions, which SQLite
 * cannot say that of. PostgreSQL runs each step in one transaction.
 */
async function columnExists(db: Kysely<any>, statement: string): Promise<boolean> {
  const match = /^ALTER TABLE (\w+) ADD COLUMN (\w+)/.exec(statement.trim());
  if (!match) return false;
  const found = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${match[1]}) WHERE name = ${match[2]}`.execute(db);
  return found.rows.length > 0;
}

export function configMigrations(dialect: ConfigDialect): MigrationProvider {
  const words = WORDS[dialect];
  const migrations: Record<string, Migration> = {};
  for (const [name, step] of Object.entries(steps)) {
    migrations[name] = {
      async up(db: Kysely<any>) {
        if (dialect === 'sqlite' && (await SQLITE_DONE[name]?.(db))) return;
        const statements = step(words);
        try {
          for (const statement of statements) {
            if (dialect === 'sqlite' && (await columnExists(db, statement))) continue;
            await sql.raw(statement).execute(db);
          }
        } catch (error) {
          // A step that opened its own transaction (SQLite's table rebuild) leaves nothing half done.
          if (statements[0] === 'BEGIN') await sql.raw('ROLLBACK').execute(db).catch(() => {});
          throw error;
        }
      },
    };
  }
  return { getMigrations: async () => migrations };
}
