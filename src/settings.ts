import path from 'node:path';

/** Every setting Logstead reads, all from LOGSTEAD_* environment variables (see the README table). */
export interface Settings {
  port: number;
  host: string;
  dataDir: string;
  /** Address users and clients reach this server on; printed on first start and used in links. */
  publicUrl: string;
  logLevel: string;
  /** Lines allowed to wait for the store before ingestion answers 503. */
  maxQueuedLines: number;
  /** Upper bound of lines written in one insert. */
  maxBatchLines: number;
  /** Clock drift (from the `now` parameter) below this is treated as noise and not corrected. */
  driftToleranceMs: number;
}

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
  const port = integer(env, 'LOGSTEAD_PORT', 8080, 0, 65535);
  const host = env.LOGSTEAD_HOST || '127.0.0.1';
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    port,
    host,
    dataDir: path.resolve(env.LOGSTEAD_DATA_DIR || './data'),
    publicUrl: (env.LOGSTEAD_PUBLIC_URL || `http://${urlHost}:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOGSTEAD_LOG_LEVEL || 'info',
    maxQueuedLines: integer(env, 'LOGSTEAD_MAX_QUEUED_LINES', 200_000, 1, 100_000_000),
    maxBatchLines: integer(env, 'LOGSTEAD_MAX_BATCH_LINES', 50_000, 1, 10_000_000),
    driftToleranceMs: integer(env, 'LOGSTEAD_DRIFT_TOLERANCE_MS', 5_000, 0, 86_400_000),
  };
}
