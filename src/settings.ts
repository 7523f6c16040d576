import path from 'node:path';

/** Every setting Logstead reads, all from LOGSTEAD_* environment variables (see the README table). */
export interface Settings {
  port: number;
  host: string;
  dataDir: string;
  /** Address users and clients reach this server on, when it is not the one it listens on. */
  publicUrl: string | undefined;
  logLevel: string;
  /** Lines allowed to wait for the store before ingestion answers 503. */
  maxQueuedLines: number;
  /** Upper bound of lines written in one insert. */
  maxBatchLines: number;
  /** Clock drift (from the `now` parameter) below this is treated as noise and not corrected. */
  driftToleranceMs: number;
  /** How long shutdown waits for open requests before closing their connections. */
  shutdownGraceMs: number;
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

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const logLevel = env.LOGSTEAD_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new SettingsError(`LOGSTEAD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const publicUrl = env.LOGSTEAD_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\/[^\s/]+/.test(publicUrl)) {
    throw new SettingsError(`LOGSTEAD_PUBLIC_URL must be an http:// or https:// address, got "${publicUrl}"`);
  }
  return {
    port: integer(env, 'LOGSTEAD_PORT', 8080, 0, 65535),
    host: env.LOGSTEAD_HOST || '127.0.0.1',
    dataDir: path.resolve(env.LOGSTEAD_DATA_DIR || './data'),
    publicUrl: publicUrl ? publicUrl.replace(/\/+$/, '') : undefined,
    logLevel,
    maxQueuedLines: integer(env, 'LOGSTEAD_MAX_QUEUED_LINES', 200_000, 1, 100_000_000),
    maxBatchLines: integer(env, 'LOGSTEAD_MAX_BATCH_LINES', 50_000, 1, 10_000_000),
    driftToleranceMs: integer(env, 'LOGSTEAD_DRIFT_TOLERANCE_MS', 5_000, 0, 86_400_000),
    shutdownGraceMs: integer(env, 'LOGSTEAD_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
  };
}
