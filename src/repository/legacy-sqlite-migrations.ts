import type Database from 'better-sqlite3';

/**
 * The embedded configuration's schema steps from before the configuration moved behind Kysely,
 * tracked with SQLite's user_version. Frozen: a data directory made by an older release is brought
 * through them to their last step, which the first Kysely migration then takes as its starting
 * point. New steps go to migrations.ts.
 */
const steps: string[] = [
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
  `CREATE TABLE categories (
     id         TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     type       TEXT NOT NULL CHECK (type IN ('views', 'boards', 'screens')),
     name       TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE UNIQUE INDEX categories_by_name ON categories(account, type, lower(name));
   CREATE TABLE presets (
     presetid    TEXT PRIMARY KEY,
     account     TEXT NOT NULL REFERENCES accounts(account),
     name        TEXT NOT NULL,
     channels    TEXT NOT NULL,
     created_at  TEXT NOT NULL,
     modified_at TEXT NOT NULL
   );
   CREATE INDEX presets_by_account ON presets(account);
   CREATE TABLE views (
     viewid       TEXT PRIMARY KEY,
     account      TEXT NOT NULL REFERENCES accounts(account),
     name         TEXT NOT NULL,
     filters      TEXT NOT NULL,
     category_ids TEXT NOT NULL,
     presetid     TEXT REFERENCES presets(presetid) ON DELETE SET NULL,
     channels     TEXT NOT NULL,
     created_at   TEXT NOT NULL,
     modified_at  TEXT NOT NULL
   );
   CREATE INDEX views_by_account ON views(account);`,
  `CREATE TABLE alert_windows (
     viewid          TEXT NOT NULL,
     alertid         TEXT NOT NULL,
     account         TEXT NOT NULL,
     window_start    INTEGER NOT NULL,
     count           INTEGER NOT NULL,
     fired_immediate INTEGER NOT NULL DEFAULT 0,
     samples         TEXT NOT NULL DEFAULT '[]',
     PRIMARY KEY (viewid, alertid)
   ) WITHOUT ROWID;
   CREATE TABLE view_activity (
     viewid       TEXT PRIMARY KEY,
     account      TEXT NOT NULL,
     last_line_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE alert_fires (
     id           INTEGER PRIMARY KEY,
     account      TEXT NOT NULL,
     viewid       TEXT NOT NULL,
     alertid      TEXT NOT NULL,
     window_start INTEGER NOT NULL,
     kind         TEXT NOT NULL,
     matches      INTEGER NOT NULL,
     fired_at     INTEGER NOT NULL,
     UNIQUE (viewid, alertid, window_start)
   );
   CREATE TABLE deliveries (
     id              INTEGER PRIMARY KEY,
     account         TEXT NOT NULL,
     fire_id         INTEGER REFERENCES alert_fires(id),
     integration     TEXT NOT NULL,
     target          TEXT NOT NULL,
     message         TEXT NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts        INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     created_at      INTEGER NOT NULL,
     updated_at      INTEGER NOT NULL
   );
   CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);
   CREATE INDEX deliveries_by_account ON deliveries(account, id);
   CREATE TABLE delivery_attempts (
     id          INTEGER PRIMARY KEY,
     delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
     at          INTEGER NOT NULL,
     outcome     TEXT NOT NULL,
     detail      TEXT NOT NULL
   );
   CREATE INDEX attempts_by_delivery ON delivery_attempts(delivery_id);`,
  `CREATE TABLE sessions (
     id_hash    TEXT PRIMARY KEY,
     account    TEXT NOT NULL REFERENCES accounts(account),
     csrf       TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // A session remembers the key that opened it, so revoking the key ends it. Sessions opened
  // before this step cannot be tied to a key: they are signed out once, on upgrade.
  `DELETE FROM sessions;
   ALTER TABLE sessions ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
   CREATE INDEX sessions_by_key ON sessions(key_id);
   CREATE INDEX sessions_by_account ON sessions(account);`,
  // How long an organisation's lines are kept, in days; NULL follows LOGSTEAD_RETENTION_DAYS.
  `ALTER TABLE accounts ADD COLUMN retention_days INTEGER;`,
  // The UTC day (YYYY-MM-DD) a meta field was first indexed, for the daily cap on new fields;
  // '' for fields indexed before the cap existed.
  `ALTER TABLE meta_field_types ADD COLUMN first_day TEXT NOT NULL DEFAULT '';`,
  // The receiver's answer code of a delivery attempt (HTTP status or SMTP reply code), for the
  // delivery history; NULL when none came (a network error) and for attempts made before this step.
  `ALTER TABLE delivery_attempts ADD COLUMN status_code INTEGER;`,
  // When an organisation was last deactivated (Unix ms): what was opened before it stays ended,
  // even once the organisation is active again.
  `ALTER TABLE accounts ADD COLUMN deactivated_at INTEGER;`,
];

export const LEGACY_SQLITE_VERSION = steps.length;

/** Brings an older embedded configuration up to the last legacy step; a new one is left empty. */
export function finishLegacySteps(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === 0) return;
  for (let version = current; version < steps.length; version++) {
    db.transaction(() => {
      db.exec(steps[version]);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
