import { startChdbHttpServer } from '../../src/testing/chdb-http-server.js';

/**
 * The ClickHouse server of bench/remote: src/testing/chdb-http-server.ts (the embedded engine
 * behind ClickHouse's HTTP interface) in a process of its own, so its CPU can be read apart from
 * the node's. Creates the database named by the first argument (default `logstead`) and prints
 * `listening on http://bench:bench@127.0.0.1:<port>/<database>`, a LOGSTEAD_CLICKHOUSE_URL. Its
 * temporary data directory goes with it on SIGTERM.
 */
const database = process.argv[2] ?? 'logstead';
if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
const server = await startChdbHttpServer();
const created = await fetch(`${server.url}/?query=${encodeURIComponent(`CREATE DATABASE IF NOT EXISTS ${database}`)}`, { method: 'POST' });
if (!created.ok) throw new Error(`CREATE DATABASE answered ${created.status}: ${await created.text()}`);
// The helper's server does not hold the process open (it is made for test processes).
const keepAlive = setInterval(() => {}, 1 << 30);
const url = new URL(server.url);
url.username = 'bench';
url.password = 'bench';
url.pathname = `/${database}`;
console.log(`listening on ${url}`);
let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  clearInterval(keepAlive);
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
