import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILE } from './accounts/first-start.js';
import type { Settings } from './settings.js';
import { VIEWER_DIR } from './viewer/static-routes.js';

/** The version in package.json, which npm and the lock file also go by. */
export function logsteadVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * What `logstead serve` prints once it listens: what it serves where, in one block. Paths are the
 * data directory's real path (symbolic links resolved), the one to back up and to find the keys in.
 * `listeningOn` is the address it really listens on; links use LOGSTEAD_PUBLIC_URL when set.
 */
export function describeStart(settings: Settings, listeningOn: string, dataDir: string): string {
  const base = settings.publicUrl ?? listeningOn;
  const credentials = path.join(dataDir, CREDENTIALS_FILE);
  const viewerBuilt = fs.existsSync(path.join(VIEWER_DIR, 'index.html'));
  const rows: Array<[string, string]> = [
    ['Log viewer', viewerBuilt ? `${base}/` : 'not built (run npm run build); the API is served'],
    ['Ingest', `${base}/logs/ingest?hostname=<host>   (and /logs/agent)`],
    ['Metrics', `${base}/metrics   (${settings.metricsKey ? 'needs LOGSTEAD_METRICS_KEY' : 'open; set LOGSTEAD_METRICS_KEY to require a key'})`],
    ['Health', `${base}/healthz`],
    ['Data', dataDir],
    ['Credentials', fs.existsSync(credentials) ? `${credentials}   (the default organisation's first keys)` : 'none in the data directory'],
    ['Log level', `${settings.logLevel}   (JSON lines on stdout; LOGSTEAD_LOG_LEVEL)`],
    ['Retention', `${settings.retentionDays} days by default (LOGSTEAD_RETENTION_DAYS); logstead org retention sets an organisation's own`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return [`Logstead ${logsteadVersion()} is listening on ${listeningOn}`, ...rows.map(([name, value]) => `  ${name.padEnd(width)}${value}`), ''].join('\n');
}
