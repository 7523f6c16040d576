import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { eventually, jsonLines, request } from '../../testing/harness.js';
import { freePort } from '../../testing/free-port.js';
import { type ServerProcess, exited, serveProcess } from '../../testing/process.js';
import { logger, sendersMissing, startRsyslog } from '../../testing/syslog-daemons.js';

/**
 * docs/ingest-syslog.md's rsyslog TCP configuration across restarts of Logstead, with Debian's
 * rsyslog as the sender: TCP acknowledges nothing, so the first message written into a connection
 * that the old Logstead closed is lost unless rsyslog keeps it in a queue and tries it again. With
 * the documented disk-assisted queue and endless retries, nothing is lost: neither what is sent
 * just after Logstead is back, nor what is sent while it is away.
 */

const skip = sendersMissing(['rsyslog', 'logger']);
const word = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

/** The documented action (docs/ingest-syslog.md, "TCP"), pointed at this test's port; `{dir}` is rsyslog's work directory. */
const documentedTcpAction = (port: number) =>
  `action(type="omfwd" protocol="tcp" target="127.0.0.1" port="${port}" template="LogsteadFormat"
       queue.type="LinkedList" queue.filename="logstead-tcp" queue.maxDiskSpace="1g"
       queue.saveOnShutdown="on" action.resumeRetryCount="-1" action.resumeInterval="1")`;

test("rsyslog over TCP, configured as documented, loses nothing across restarts of Logstead", { skip }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-rsyslog-restart-'));
  const tcpPort = await freePort();
  const env = { LOGSTEAD_SYSLOG_TCP_PORT: String(tcpPort) };
  let logstead: ServerProcess = await serveProcess(dataDir, env);
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const rsyslog = await startRsyslog(
    [
      `template(name="LogsteadFormat" type="string" string="<%PRI%>%protocol-version% %timestamp:::date-rfc3339% %HOSTNAME% %app-name% %procid% %msgid% [logdna@48950 key=\\"${credentials.ingestionKey}\\"] %msg%\\n")`,
      documentedTcpAction(tcpPort),
    ].join('\n'),
  );
  const run = word('restart');
  const send = (text: string) => logger(['-u', rsyslog.socket, '-t', 'restarts', '-p', 'user.info', '--', `${run} ${text}`]);
  const storedLines = async () => {
    const reply = await request(`${logstead.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${run}`, { headers: { servicekey: credentials.serviceKey } });
    assert.equal(reply.status, 200, reply.text);
    return jsonLines(reply.text).map((line) => (line._line as string).slice(run.length + 1));
  };
  const allOf = (expected: string[]) =>
    eventually(
      async () => {
        const found = await storedLines();
        return expected.every((text) => found.includes(text)) ? found : undefined;
      },
      60_000,
      `${expected.join(', ')} stored`,
    ).catch(async (error) => {
      throw new Error(`${error}\nstored: ${(await storedLines()).join(', ')}\nrsyslog said:\n${rsyslog.output()}`);
    });
  const stop = async () => {
    logstead.child.kill('SIGTERM');
    await exited(logstead.child);
  };
  try {
    await send('before');
    await allOf(['before']);

    // Restarted between two messages: the first after the restart goes into the connection the old
    // Logstead closed.
    await stop();
    logstead = await serveProcess(dataDir, env);
    await send('first after restart');
    await send('second after restart');
    await allOf(['before', 'first after restart', 'second after restart']);

    // Messages sent while Logstead is away wait in rsyslog's queue.
    await stop();
    await send('while away 1');
    await send('while away 2');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    logstead = await serveProcess(dataDir, env);
    await send('once back');
    const expected = ['before', 'first after restart', 'second after restart', 'while away 1', 'while away 2', 'once back'];
    const lines = await allOf(expected);
    // Give a late duplicate time to show, then check each arrived once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual((await storedLines()).sort(), [...expected].sort(), `each message once: ${lines.join(', ')}`);
  } finally {
    await rsyslog.stop();
    if (logstead.child.exitCode === null && logstead.child.signalCode === null) await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
