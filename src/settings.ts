import net from 'node:net';
import path from 'node:path';

/** Every setting Logstead reads, all from LOGSTEAD_* environment variables (see the README table). */
export interface Settings {
  port: number;
  host: string;
  /** OTLP/gRPC (OpenTelemetry logs) listens on this port of `host`; undefined (off) when unset. 0 picks a free port. */
  otlpGrpcPort: number | undefined;
  /** Syslog listeners on `host`, each off (undefined) while unset; 0 picks a free port. */
  syslogTcpPort: number | undefined;
  syslogUdpPort: number | undefined;
  syslogTlsPort: number | undefined;
  /** PEM files of the TLS listener's certificate (chain) and private key; both required with syslogTlsPort. */
  syslogTlsCert: string | undefined;
  syslogTlsKey: string | undefined;
  /** RELP (rsyslog's omrelp) on `host`; off while unset. */
  relpPort: number | undefined;
  /** The ingestion key that syslog messages carrying no logdna@48950 key are stored under; unset drops them. */
  syslogKey: string | undefined;
  /** Connections a TCP, TLS or RELP listener keeps open from one address; more are closed as they arrive. */
  syslogMaxConnectionsPerAddress: number;
  dataDir: string;
  /** Address users and clients reach this server on, when it is not the one it listens on. */
  publicUrl: string | undefined;
  logLevel: string;
  /** Lines allowed to wait for the store before ingestion answers 503. */
  maxQueuedLines: number;
  /** How long an ingest request may wait for room in the store's queue before it gets 503. */
  ingestWaitMs: number;
  /** Upper bound of lines written in one insert. */
  maxBatchLines: number;
  /** How long a request may wait for others to join its insert while more are on their way. */
  groupCommitMs: number;
  /** Lines at which the group commit stops waiting for more and writes. */
  groupCommitLines: number;
  /** Clock drift (from the `now` parameter) below this is treated as noise and not corrected. */
  driftToleranceMs: number;
  /** How long shutdown waits for open requests before closing their connections. */
  shutdownGraceMs: number;
  /** SMTP server for alert and export e-mail, e.g. smtp://user:pass@mail.example:587. */
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** PagerDuty Events API v2 endpoint for incident paging. */
  pagingUrl: string;
  /** OpsGenie's API base for every OpsGenie channel, whatever its region (unset: by the channel's region). */
  opsgenieUrl: string | undefined;
  /** VictorOps' REST endpoint base, to which `/{key}/{routing key}` is added. */
  victoropsUrl: string;
  /** Let webhooks reach loopback and private addresses (off: alerts must not reach internal services). */
  allowPrivateWebhooks: boolean;
  deliveryRetryBaseMs: number;
  deliveryMaxAttempts: number;
  /** How long an export download link stays valid. */
  exportLinkHours: number;
  /** Wrong keys one client address may try at viewer sign-in per 15 minutes before it must wait. */
  signInFailuresPerAddress: number;
  /** Wrong keys all addresses together may try per minute: the backstop against guessing from many addresses. */
  signInFailuresPerMinute: number;
  /** Days lines are kept, for organisations without their own retention. */
  retentionDays: number;
  /** With it, the oldest days are dropped while the stored lines take more bytes than this. */
  maxDiskBytes: number | undefined;
  /** What the embedded engine's caches (marks, text index dictionaries and headers, ...) may hold together; unset: 256 MiB (store/chdb-executor.ts). */
  engineCacheBytes: number | undefined;
  /** New meta field paths an organisation may add to its index per UTC day (Mezmo: about 500). */
  maxMetaFieldsPerDay: number;
  /** When set, GET /metrics answers only a scraper that presents this key. */
  metricsKey: string | undefined;
  /** A ClickHouse server for the log lines (http(s)://user:password@host:8123/database); unset: embedded chDB. */
  clickhouseUrl: string | undefined;
  /** A cluster of that server's configuration the log tables are created ON CLUSTER. */
  clickhouseCluster: string | undefined;
  /**
   * Which proxies' X-Forwarded-For to believe for a client's address (sign-in limits, logs): false,
   * true (any), a hop count, or addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string;
  /** A PostgreSQL server for the configuration (postgres://user:password@host:5432/db); unset: SQLite in the data directory. */
  databaseUrl: string | undefined;
  /** Whether POST /api/session takes a service key (a fresh install is opened with the printed one). */
  keySignIn: boolean;
  /** How long an invitation or password-reset link works. */
  inviteHours: number;
  /** Single sign-on with OpenID Connect; undefined when LOGSTEAD_OIDC_ISSUER is not set. */
  oidc: OidcSettings | undefined;
  /** LOGSTEAD_SECRET_KEY: 32 bytes that encrypt stored secrets; undefined: the data directory's key file. */
  secretKey: Buffer | undefined;
  /** Archiving (src/archive). */
  archive: ArchiveSettings;
}

export interface ArchiveSettings {
  /** How long after its hour closes an hour is archived, waiting for late lines. */
  delayMinutes: number;
  /** How often the archiver looks for work. */
  intervalSeconds: number;
  /** Let an archive endpoint be a loopback or private address (self-hosted stores usually are). */
  allowPrivate: boolean;
  /** How long after a line arrives it is surely stored, so a pass may cover its arrival (archive/archiver.ts). */
  settleSeconds: number;
  /** Retention keeps hours not yet archived at most this many days past their retention, then drops them with a warning. */
  holdDays: number;
  /** Most archived lines a restore handles in one step, between which it records its progress and checks for a cancel. */
  restoreStepLines: number;
}

export interface OidcSettings {
  /** https:// (or http:// on a loopback address, for a local provider). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Lower-case e-mail domains whose people may sign in without an invitation; empty: invited members only. */
  domains: string[];
  /** The role such people get on their first sign-in. */
  defaultRole: 'owner' | 'admin' | 'member' | 'readonly';
  /** The organisation they join (account id); undefined: the first organisation. */
  account: string | undefined;
  /** A claim of the ID token or user info whose values name groups the person is put in at each sign-in. */
  groupsClaim: string | undefined;
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** A size such as 500000000, 500MB or 20GiB; undefined when unset. */
function byteSize(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw);
  const unit = match ? BYTE_UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined || Number(match[1]) * unit < 1) {
    throw new SettingsError(`${name} must be a size in bytes such as 50000000000, 50GB or 40GiB, got "${raw}"`);
  }
  return Math.floor(Number(match[1]) * unit);
}

/** At least 16 MiB, so that each of the engine's caches gets a megabyte (engineCacheArgs gives each a sixteenth or more). */
function engineCacheBytes(env: NodeJS.ProcessEnv): number | undefined {
  const bytes = byteSize(env, 'LOGSTEAD_ENGINE_CACHE_BYTES');
  if (bytes !== undefined && bytes < 16 * 2 ** 20) throw new SettingsError(`LOGSTEAD_ENGINE_CACHE_BYTES must be at least 16MiB, got "${env.LOGSTEAD_ENGINE_CACHE_BYTES}"`);
  return bytes;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class SettingsError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** A listener's port: undefined (the listener off) when unset. */
function optionalPort(env: NodeJS.ProcessEnv, name: string): number | undefined {
  return env[name]?.trim() ? integer(env, name, 0, 0, 65535) : undefined;
}

function syslogSettings(env: NodeJS.ProcessEnv) {
  const syslogTlsPort = optionalPort(env, 'LOGSTEAD_SYSLOG_TLS_PORT');
  const syslogTlsCert = env.LOGSTEAD_SYSLOG_TLS_CERT?.trim() || undefined;
  const syslogTlsKey = env.LOGSTEAD_SYSLOG_TLS_KEY?.trim() || undefined;
  if (syslogTlsPort !== undefined && (!syslogTlsCert || !syslogTlsKey)) {
    throw new SettingsError('LOGSTEAD_SYSLOG_TLS_PORT needs LOGSTEAD_SYSLOG_TLS_CERT and LOGSTEAD_SYSLOG_TLS_KEY (paths of PEM files)');
  }
  return {
    syslogTcpPort: optionalPort(env, 'LOGSTEAD_SYSLOG_TCP_PORT'),
    syslogUdpPort: optionalPort(env, 'LOGSTEAD_SYSLOG_UDP_PORT'),
    syslogTlsPort,
    syslogTlsCert: syslogTlsCert && path.resolve(syslogTlsCert),
    syslogTlsKey: syslogTlsKey && path.resolve(syslogTlsKey),
    relpPort: optionalPort(env, 'LOGSTEAD_RELP_PORT'),
    syslogKey: env.LOGSTEAD_SYSLOG_KEY?.trim() || undefined,
    syslogMaxConnectionsPerAddress: integer(env, 'LOGSTEAD_SYSLOG_MAX_CONNECTIONS_PER_ADDRESS', 1000, 1, 10_000),
  };
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1' || raw === 'yes') return true;
  if (raw === 'false' || raw === '0' || raw === 'no') return false;
  throw new SettingsError(`${name} must be true or false, got "${env[name]}"`);
}

/** Where incident paging goes unless LOGSTEAD_PAGING_URL says otherwise: PagerDuty's Events API v2. */
const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
/** VictorOps' (Splunk On-Call's) REST endpoint, unless LOGSTEAD_VICTOROPS_URL says otherwise. */
const VICTOROPS_REST_URL = 'https://alert.victorops.com/integrations/generic/20131114/alert';

/** A URL, or undefined for text that is none. */
function parsedUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** An optional address setting; it must parse as a URL with one of `schemes` (e.g. 'https:'). */
function address(env: NodeJS.ProcessEnv, name: string, schemes: string[], example: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const url = parsedUrl(raw);
  if (!url || !schemes.includes(url.protocol) || !url.hostname) {
    throw new SettingsError(`${name} must be an ${schemes.map((scheme) => `${scheme}//`).join(' or ')} address such as ${example}, got "${raw}"`);
  }
  return raw;
}

/** LOGSTEAD_CLICKHOUSE_URL; its errors never repeat it, as it carries a password. */
function clickhouseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.LOGSTEAD_CLICKHOUSE_URL?.trim();
  if (!raw) return undefined;
  const url = parsedUrl(raw);
  if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname || url.search || url.hash || url.pathname.split('/').length > 2) {
    throw new SettingsError('LOGSTEAD_CLICKHOUSE_URL must be an http:// or https:// address such as http://user:password@clickhouse:8123/logs (the path, if any, names the database)');
  }
  return raw;
}

/** LOGSTEAD_CLICKHOUSE_CLUSTER: a cluster name as the server's configuration spells it. */
function clickhouseCluster(env: NodeJS.ProcessEnv, url: string | undefined): string | undefined {
  const raw = env.LOGSTEAD_CLICKHOUSE_CLUSTER?.trim();
  if (!raw) return undefined;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(raw)) {
    throw new SettingsError(`LOGSTEAD_CLICKHOUSE_CLUSTER must be a cluster name of letters, digits, _, . and -, got "${raw}"`);
  }
  if (!url) throw new SettingsError('LOGSTEAD_CLICKHOUSE_CLUSTER needs LOGSTEAD_CLICKHOUSE_URL: the embedded engine has no clusters');
  return raw;
}

/**
 * LOGSTEAD_TRUST_PROXY: unset, a client's address is the connection's; behind a load balancer that
 * would make every client one address. Trusting any proxy lets a client that reaches the port
 * directly claim any address, so naming the balancers is preferred.
 */
function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = env.LOGSTEAD_TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address);
    return family !== 0 && extra === undefined && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)));
  });
  if (!valid) {
    throw new SettingsError(`LOGSTEAD_TRUST_PROXY must be true, a number of proxy hops, or addresses and CIDR ranges such as 10.0.0.5,10.1.0.0/16, got "${raw}"`);
  }
  return entries.join(',');
}

/** LOGSTEAD_DATABASE_URL; like the ClickHouse URL, its errors never repeat it. */
function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.LOGSTEAD_DATABASE_URL?.trim();
  if (!raw) return undefined;
  const url = parsedUrl(raw);
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || !url.hostname) {
    throw new SettingsError('LOGSTEAD_DATABASE_URL must be a postgres:// address such as postgres://logstead:password@db:5432/logstead');
  }
  return raw;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const logLevel = env.LOGSTEAD_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new SettingsError(`LOGSTEAD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const publicUrl = address(env, 'LOGSTEAD_PUBLIC_URL', ['http:', 'https:'], 'https://logs.example.com');
  const clickhouse = clickhouseUrl(env);
  return {
    port: integer(env, 'LOGSTEAD_PORT', 8080, 0, 65535),
    host: env.LOGSTEAD_HOST || '127.0.0.1',
    otlpGrpcPort: optionalPort(env, 'LOGSTEAD_OTLP_GRPC_PORT'),
    ...syslogSettings(env),
    dataDir: path.resolve(env.LOGSTEAD_DATA_DIR || './data'),
    publicUrl: publicUrl ? publicUrl.replace(/\/+$/, '') : undefined,
    logLevel,
    maxQueuedLines: integer(env, 'LOGSTEAD_MAX_QUEUED_LINES', 200_000, 1, 100_000_000),
    maxBatchLines: integer(env, 'LOGSTEAD_MAX_BATCH_LINES', 50_000, 1, 10_000_000),
    groupCommitMs: integer(env, 'LOGSTEAD_GROUP_COMMIT_MS', 100, 0, 10_000),
    groupCommitLines: integer(env, 'LOGSTEAD_GROUP_COMMIT_LINES', 8_000, 1, 10_000_000),
    ingestWaitMs: integer(env, 'LOGSTEAD_INGEST_WAIT_MS', 10_000, 0, 600_000),
    driftToleranceMs: integer(env, 'LOGSTEAD_DRIFT_TOLERANCE_MS', 5_000, 0, 86_400_000),
    shutdownGraceMs: integer(env, 'LOGSTEAD_SHUTDOWN_GRACE_MS', 8_000, 0, 3_600_000),
    smtpUrl: address(env, 'LOGSTEAD_SMTP_URL', ['smtp:', 'smtps:'], 'smtp://user:pass@mail.example:587'),
    smtpFrom: env.LOGSTEAD_SMTP_FROM?.trim() || 'Logstead <logstead@localhost>',
    pagingUrl: address(env, 'LOGSTEAD_PAGING_URL', ['http:', 'https:'], PAGERDUTY_EVENTS_URL) ?? PAGERDUTY_EVENTS_URL,
    opsgenieUrl: address(env, 'LOGSTEAD_OPSGENIE_URL', ['http:', 'https:'], 'https://api.opsgenie.com')?.replace(/\/+$/, ''),
    victoropsUrl: (address(env, 'LOGSTEAD_VICTOROPS_URL', ['http:', 'https:'], VICTOROPS_REST_URL) ?? VICTOROPS_REST_URL).replace(/\/+$/, ''),
    allowPrivateWebhooks: boolean(env, 'LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS', false),
    deliveryRetryBaseMs: integer(env, 'LOGSTEAD_DELIVERY_RETRY_BASE_MS', 2_000, 1, 3_600_000),
    deliveryMaxAttempts: integer(env, 'LOGSTEAD_DELIVERY_MAX_ATTEMPTS', 8, 1, 100),
    exportLinkHours: integer(env, 'LOGSTEAD_EXPORT_LINK_HOURS', 24, 1, 24 * 30),
    retentionDays: integer(env, 'LOGSTEAD_RETENTION_DAYS', 30, 1, 3650),
    maxDiskBytes: byteSize(env, 'LOGSTEAD_MAX_DISK_BYTES'),
    engineCacheBytes: engineCacheBytes(env),
    signInFailuresPerAddress: integer(env, 'LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS', 10, 1, 1_000_000),
    signInFailuresPerMinute: integer(env, 'LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE', 100, 1, 1_000_000),
    maxMetaFieldsPerDay: integer(env, 'LOGSTEAD_MAX_META_FIELDS_PER_DAY', 500, 0, 1_000_000),
    metricsKey: env.LOGSTEAD_METRICS_KEY?.trim() || undefined,
    clickhouseUrl: clickhouse,
    clickhouseCluster: clickhouseCluster(env, clickhouse),
    databaseUrl: databaseUrl(env),
    trustProxy: trustProxy(env),
    keySignIn: boolean(env, 'LOGSTEAD_KEY_SIGN_IN', true),
    inviteHours: integer(env, 'LOGSTEAD_INVITE_HOURS', 72, 1, 24 * 365),
    oidc: oidcSettings(env),
    secretKey: secretKey(env),
    archive: {
      delayMinutes: integer(env, 'LOGSTEAD_ARCHIVE_DELAY_MINUTES', 60, 0, 7 * 24 * 60),
      intervalSeconds: integer(env, 'LOGSTEAD_ARCHIVE_INTERVAL_SECONDS', 60, 1, 86_400),
      allowPrivate: boolean(env, 'LOGSTEAD_ALLOW_PRIVATE_ARCHIVES', true),
      settleSeconds: integer(env, 'LOGSTEAD_ARCHIVE_SETTLE_SECONDS', 30, 1, 3600),
      holdDays: integer(env, 'LOGSTEAD_ARCHIVE_HOLD_DAYS', 7, 0, 3650),
      restoreStepLines: integer(env, 'LOGSTEAD_RESTORE_STEP_LINES', 10_000, 1, 1_000_000),
    },
  };
}

/** LOGSTEAD_SECRET_KEY: 64 hexadecimal characters; its errors never repeat it. */
function secretKey(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.LOGSTEAD_SECRET_KEY?.trim();
  if (!raw) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(raw)) {
    throw new SettingsError(`LOGSTEAD_SECRET_KEY must be 64 hexadecimal characters (32 bytes), e.g. from \`openssl rand -hex 32\` (got a value of ${raw.length} characters)`);
  }
  return Buffer.from(raw, 'hex');
}

const ROLE_NAMES = ['owner', 'admin', 'member', 'readonly'] as const;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** LOGSTEAD_OIDC_*: all or nothing, so a half-configured sign-on fails at start, not at a person's first try. */
function oidcSettings(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const issuer = env.LOGSTEAD_OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  const url = parsedUrl(issuer);
  if (!url || !url.hostname || (url.protocol !== 'https:' && !(url.protocol === 'http:' && (LOOPBACK_HOSTS.has(url.hostname) || /^127\./.test(url.hostname))))) {
    throw new SettingsError(`LOGSTEAD_OIDC_ISSUER must be an https:// address (http:// only on a loopback address, for a local provider), got "${issuer}"`);
  }
  const clientId = env.LOGSTEAD_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.LOGSTEAD_OIDC_CLIENT_SECRET?.trim();
  if (!clientId || !clientSecret) throw new SettingsError('LOGSTEAD_OIDC_ISSUER is set, so LOGSTEAD_OIDC_CLIENT_ID and LOGSTEAD_OIDC_CLIENT_SECRET must be set too');
  const defaultRole = (env.LOGSTEAD_OIDC_DEFAULT_ROLE?.trim().toLowerCase() || 'readonly') as OidcSettings['defaultRole'];
  if (!ROLE_NAMES.includes(defaultRole)) throw new SettingsError(`LOGSTEAD_OIDC_DEFAULT_ROLE must be one of ${ROLE_NAMES.join(', ')}, got "${defaultRole}"`);
  const domains = (env.LOGSTEAD_OIDC_DOMAINS ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);
  return {
    issuer,
    clientId,
    clientSecret,
    domains,
    defaultRole,
    account: env.LOGSTEAD_OIDC_ACCOUNT?.trim() || undefined,
    groupsClaim: env.LOGSTEAD_OIDC_GROUPS_CLAIM?.trim() || undefined,
  };
}
