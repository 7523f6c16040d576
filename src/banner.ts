import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILE } from './accounts/first-start.js';
import type { SyslogPorts } from './ingest/syslog/start.js';
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
 * `syslogPorts` are the ports the syslog and RELP listeners really bound (none when off).
 */
export function describeStart(settings: Settings, listeningOn: string, dataDir: string, syslogPorts: SyslogPorts = {}): string {
  const base = settings.publicUrl ?? listeningOn;
  const credentials = path.join(dataDir, CREDENTIALS_FILE);
  const viewerBuilt = fs.existsSync(path.join(VIEWER_DIR, 'index.html'));
  const rows: Array<[string, string]> = [
    ['Log viewer', viewerBuilt ? `${base}/` : 'not built (run npm run build); the API is served'],
    ['Ingest', `${base}/logs/ingest?hostname=<host>   (and /logs/agent)`],
    ['Also takes', `OTLP ${base}/v1/logs${settings.otlpGrpcPort === undefined ? '' : ` and gRPC on port ${settings.otlpGrpcPort}`}, Elasticsearch ${base}/_bulk, Loki ${base}/loki/api/v1/push`],
    ['Syslog', describeSyslog(settings.host, syslogPorts)],
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

/** The syslog and RELP listeners that are on, or how to turn them on. */
function describeSyslog(host: string, ports: SyslogPorts): string {
  const on = (
    [
      ['TCP', ports.tcp],
      ['TLS', ports.tls],
      ['UDP', ports.udp],
      ['RELP', ports.relp],
    ] as const
  ).filter(([, port]) => port !== undefined);
  if (on.length === 0) return 'off (LOGSTEAD_SYSLOG_TCP_PORT, _UDP_PORT, _TLS_PORT, LOGSTEAD_RELP_PORT turn listeners on)';
  return on.map(([name, port]) => `${name} ${host}:${port}`).join(', ');
}
