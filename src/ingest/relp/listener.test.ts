import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { IngestAdmission } from '../admission.js';
import type { Intake, IntakeRequest } from '../intake.js';
import { OpenConnections, listenStream } from '../syslog/stream-listener.js';
import { SyslogIntake } from '../syslog/syslog-intake.js';
import { relpServer } from './listener.js';

/**
 * The RELP listener on loopback over a syslog intake whose store fails for one organisation: each
 * message is acknowledged by its own outcome, so one whose write still failed when the listener
 * stopped is left for the sender to send again while the others are acknowledged.
 */

const quiet = { warn() {}, error() {}, info() {}, debug() {} } as unknown as FastifyBaseLogger;

function startRelp(failingAccount: string) {
  const intake = {
    admit() {},
    async prepare(request: IntakeRequest) {
      return request;
    },
    async write(prepared: IntakeRequest) {
      if (prepared.account === failingAccount) throw new Error('store away');
    },
  } as unknown as Intake;
  const syslog = new SyslogIntake({
    accounts: { accountForKey: async (key: string) => `org-${key}` } as unknown as Accounts,
    intake,
    admission: new IngestAdmission(() => 0, { maxQueuedLines: 1000, maxReadingBytes: 1 << 30, waitMs: 0 }),
    fallbackKey: undefined,
    dropped: () => {},
    log: quiet,
  });
  const connections = new OpenConnections();
  return { syslog, listening: listenStream(relpServer({ intake: syslog, log: quiet }, connections), '127.0.0.1', 0, connections) };
}

function frame(txnr: number, command: string, data: string): string {
  return `${txnr} ${command} ${Buffer.byteLength(data)} ${data}\n`;
}

test('a message whose write still fails as the listener stops is not acknowledged; the others are', async () => {
  const { syslog, listening } = startRelp('org-down');
  const listener = await listening;
  const socket = net.connect({ host: '127.0.0.1', port: listener.port });
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(frame(1, 'open', 'relp_version=0\nrelp_software=test\ncommands=syslog'));
  socket.write(frame(2, 'syslog', '<14>1 - h a - - [logdna@48950 key="up"] stored'));
  socket.write(frame(3, 'syslog', '<14>1 - h a - - [logdna@48950 key="down"] failing'));
  // Long enough for the failing write to be retried a few times.
  await new Promise((resolve) => setTimeout(resolve, 500));
  syslog.stop();
  await listener.close();
  await closed;
  assert.match(received, /^1 rsp \d+ 200 OK\n/);
  assert.match(received, /\n2 rsp 6 200 OK\n/);
  assert.doesNotMatch(received, /\n3 rsp /, 'the failed message is left for the sender to resend');
  assert.match(received, /0 serverclose 0\n$/);
});
