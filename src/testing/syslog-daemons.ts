import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { promisify } from 'node:util';

/**
 * Debian's syslog daemons as real senders: rsyslog (with rsyslog-relp and rsyslog-gnutls) and
 * syslog-ng, each run in the foreground on a configuration of the test's own, taking messages on a
 * Unix socket of its own that util-linux `logger -u` writes to, as a host's programs do. The two
 * Debian packages conflict (each is the system's log daemon), so syslog-ng may also be an extracted
 * copy of its package: LOGSTEAD_SYSLOG_NG_ROOT names the folder it was extracted into (.ci/run
 * puts it in /opt/syslog-ng).
 */

const run = promisify(execFile);

const SYSLOG_NG_ROOT = process.env.LOGSTEAD_SYSLOG_NG_ROOT ?? '/opt/syslog-ng';

function syslogNgCommand(): { binary: string; env: NodeJS.ProcessEnv; modulePath?: string } | undefined {
  if (fs.existsSync('/usr/sbin/syslog-ng')) return { binary: '/usr/sbin/syslog-ng', env: process.env };
  const binary = path.join(SYSLOG_NG_ROOT, 'usr/sbin/syslog-ng');
  if (!fs.existsSync(binary)) return undefined;
  const libraries = path.join(SYSLOG_NG_ROOT, 'usr/lib/syslog-ng');
  const version = fs.readdirSync(libraries).find((entry) => /^\d+\.\d+$/.test(entry));
  return { binary, env: { ...process.env, LD_LIBRARY_PATH: libraries }, modulePath: version ? path.join(libraries, version) : undefined };
}

/** The real senders and the tools the syslog tests drive, each checked on its own. */
export type Sender = 'rsyslog' | 'rsyslog-relp' | 'rsyslog-gnutls' | 'syslog-ng' | 'logger' | 'openssl';

const rsyslogModule = (name: string) => ['/usr/lib/x86_64-linux-gnu/rsyslog', '/usr/lib/aarch64-linux-gnu/rsyslog', '/usr/lib/rsyslog'].some((dir) => fs.existsSync(path.join(dir, name)));

const installed: Record<Sender, () => boolean> = {
  rsyslog: () => fs.existsSync('/usr/sbin/rsyslogd'),
  'rsyslog-relp': () => rsyslogModule('omrelp.so'),
  'rsyslog-gnutls': () => rsyslogModule('lmnsd_gtls.so'),
  'syslog-ng': () => syslogNgCommand() !== undefined,
  logger: () => fs.existsSync('/usr/bin/logger'),
  openssl: () => fs.existsSync('/usr/bin/openssl'),
};
const packageOf: Record<Sender, string> = { rsyslog: 'rsyslog', 'rsyslog-relp': 'rsyslog-relp', 'rsyslog-gnutls': 'rsyslog-gnutls', 'syslog-ng': 'syslog-ng', logger: 'logger (bsdutils)', openssl: 'openssl' };

/**
 * Why a suite cannot run here: which of the senders and tools it `needs` are not installed, or
 * undefined when all are. Each suite names only its own, so a missing syslog-ng skips only the
 * syslog-ng suites. CI sets LOGSTEAD_REQUIRE_SENDERS=true: then a missing one is a failure.
 */
export function sendersMissing(needs: readonly Sender[]): string | undefined {
  const missing = needs.filter((sender) => !installed[sender]()).map((sender) => packageOf[sender]);
  if (missing.length === 0) return undefined;
  const reason = `not installed: ${missing.join(', ')} (see .ci/run)`;
  if (process.env.LOGSTEAD_REQUIRE_SENDERS === 'true') throw new Error(`the real syslog senders are required here, but ${reason}`);
  return reason;
}

export interface SyslogDaemon {
  /** The Unix socket the daemon reads local messages from. */
  socket: string;
  dir: string;
  output(): string;
  stop(): Promise<void>;
}

const daemons = new Set<ChildProcess>();
after(() => {
  for (const child of daemons) child.kill('SIGKILL');
});

async function waitFor(condition: () => boolean, what: string, output: () => string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startDaemon(command: string, args: string[], env: NodeJS.ProcessEnv, dir: string, socket: string): Promise<SyslogDaemon> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  daemons.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const daemon: SyslogDaemon = {
    socket,
    dir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      daemons.delete(child);
    },
  };
  return waitFor(() => fs.existsSync(socket) || child.exitCode !== null, `${command} opening ${socket}`, () => output).then(() => {
    if (child.exitCode !== null) throw new Error(`${command} exited:\n${output}`);
    return daemon;
  });
}

/**
 * rsyslogd in the foreground with `config` (its actions) after a preamble that reads local
 * messages from its own socket. `{dir}` in the config is replaced by the daemon's folder.
 */
export async function startRsyslog(config: string): Promise<SyslogDaemon> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-rsyslog-'));
  const socket = path.join(dir, 'log.sock');
  const text = [
    `global(workDirectory="${dir}")`,
    'module(load="imuxsock" SysSock.Use="off")',
    // No rate limit: a test sends bursts from one process.
    `input(type="imuxsock" Socket="${socket}" CreatePath="on" RateLimit.Interval="0")`,
    config.replaceAll('{dir}', dir),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'rsyslog.conf'), text);
  return startDaemon('/usr/sbin/rsyslogd', ['-n', '-f', path.join(dir, 'rsyslog.conf'), '-i', path.join(dir, 'rsyslogd.pid')], process.env, dir, socket);
}

/** syslog-ng in the foreground with `config` (destinations and a log path from source `s_local`). */
export async function startSyslogNg(config: string): Promise<SyslogDaemon> {
  const command = syslogNgCommand();
  if (!command) throw new Error('syslog-ng is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-syslog-ng-'));
  const socket = path.join(dir, 'log.sock');
  const text = ['@version: 3.38', `source s_local { unix-dgram("${socket}"); };`, config.replaceAll('{dir}', dir)].join('\n');
  fs.writeFileSync(path.join(dir, 'syslog-ng.conf'), text);
  const args = ['-F', '--no-caps', '-f', path.join(dir, 'syslog-ng.conf'), '-R', path.join(dir, 'persist'), '-p', path.join(dir, 'pid'), '-c', path.join(dir, 'ctl')];
  if (command.modulePath) args.push(`--module-path=${command.modulePath}`);
  return startDaemon(command.binary, args, command.env, dir, socket);
}

/** util-linux logger: `args` as a user types them (the message last). */
export async function logger(args: string[]): Promise<void> {
  await run('/usr/bin/logger', args);
}

/** A self-signed certificate and key for 127.0.0.1, as PEM files in `dir`. */
export async function selfSignedCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  await run('/usr/bin/openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  return { cert, key };
}
