import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import type { Subsystem } from '../../lib/subsystem.js';
import type { Settings } from '../../settings.js';
import type { IngestAdmission } from '../admission.js';
import type { Intake } from '../intake.js';
import { relpServer } from '../relp/listener.js';
import { OpenConnections, listenStream, syslogTcpServer, syslogTlsServer } from './stream-listener.js';
import { type DropCounter, SyslogIntake } from './syslog-intake.js';
import { listenSyslogUdp } from './udp-listener.js';

export interface SyslogPorts {
  tcp?: number;
  tls?: number;
  udp?: number;
  relp?: number;
}

/** The listeners' own settings; each listener is off while its port is unset. */
export type SyslogSettings = Pick<Settings, 'host' | 'syslogTcpPort' | 'syslogUdpPort' | 'syslogTlsPort' | 'syslogTlsCert' | 'syslogTlsKey' | 'relpPort' | 'syslogKey' | 'syslogMaxConnectionsPerAddress'>;

/**
 * Syslog's listeners, each on when its port is set: TCP (LOGSTEAD_SYSLOG_TCP_PORT), TLS
 * (LOGSTEAD_SYSLOG_TLS_PORT), UDP (LOGSTEAD_SYSLOG_UDP_PORT) and RELP (LOGSTEAD_RELP_PORT), on
 * LOGSTEAD_HOST. Closing stops accepting, then writes what every connection has read (RELP
 * acknowledges it) before the intake closes.
 */
export async function startSyslogIngest(deps: {
  settings: SyslogSettings;
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
  dropped: DropCounter;
  log: FastifyBaseLogger;
}): Promise<Subsystem & { ports: SyslogPorts }> {
  const { settings } = deps;
  const log = deps.log.child({ subsystem: 'syslog' });
  const intake = new SyslogIntake({ accounts: deps.accounts, intake: deps.intake, admission: deps.admission, fallbackKey: settings.syslogKey, dropped: deps.dropped, log });
  const listeners: { close(): Promise<void> }[] = [];
  const ports: SyslogPorts = {};
  const close = async () => {
    intake.stop();
    await Promise.all(listeners.map((listener) => listener.close()));
  };
  try {
    if (settings.syslogTcpPort !== undefined) {
      const connections = new OpenConnections();
      const listener = await listenStream(syslogTcpServer({ intake, log }, connections), settings.host, settings.syslogTcpPort, connections, { log, maxConnectionsPerAddress: settings.syslogMaxConnectionsPerAddress });
      listeners.push(listener);
      ports.tcp = listener.port;
      log.info(`syslog over TCP listening on ${settings.host}:${listener.port}`);
    }
    if (settings.syslogTlsPort !== undefined) {
      // Read at start, so a missing or unreadable file stops the start with its own error.
      const cert = fs.readFileSync(settings.syslogTlsCert!);
      const key = fs.readFileSync(settings.syslogTlsKey!);
      const connections = new OpenConnections();
      const listener = await listenStream(syslogTlsServer({ intake, log, cert, key }, connections), settings.host, settings.syslogTlsPort, connections, { log, maxConnectionsPerAddress: settings.syslogMaxConnectionsPerAddress });
      listeners.push(listener);
      ports.tls = listener.port;
      log.info(`syslog over TLS listening on ${settings.host}:${listener.port}`);
    }
    if (settings.syslogUdpPort !== undefined) {
      const listener = await listenSyslogUdp({ intake, log, host: settings.host, port: settings.syslogUdpPort });
      listeners.push(listener);
      ports.udp = listener.port;
      log.info(`syslog over UDP listening on ${settings.host}:${listener.port}`);
    }
    if (settings.relpPort !== undefined) {
      const connections = new OpenConnections();
      const listener = await listenStream(relpServer({ intake, log }, connections), settings.host, settings.relpPort, connections, { log, maxConnectionsPerAddress: settings.syslogMaxConnectionsPerAddress });
      listeners.push(listener);
      ports.relp = listener.port;
      log.info(`RELP listening on ${settings.host}:${listener.port}`);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { ports, close };
}
