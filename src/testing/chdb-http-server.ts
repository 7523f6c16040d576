import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { ENGINE_ARGS } from '../store/chdb-executor.js';

/**
 * The embedded engine (chDB, ClickHouse 26.x) served over ClickHouse's HTTP interface, so the
 * server executor (store/clickhouse-executor.ts) can be tested here, where no ClickHouse server
 * new enough installs. The SQL, the engine, the wire formats and @clickhouse/client are the real
 * ones; only the HTTP front is this file.
 *
 * What it covers: POST and GET on `/` with the query in the `query` URL parameter, in the body,
 * or both (then the body follows the query, as the server does: the data of an INSERT ... FORMAT);
 * multipart/form-data bodies (the client's choice for long parameters); `param_<name>` bindings
 * passed to the engine untouched (as SET param_<name>, which binds exactly as the server's
 * param_* does: the value's text is parsed by the declared type); `database`; every other URL
 * parameter applied as a setting for that request only; `wait_end_of_query` (the whole result
 * before the status) and, without it, results streamed chunk by chunk as the engine yields them;
 * `X-ClickHouse-Query-Id`, `-Summary` (written rows), `-Format` and `-Exception-Code` headers;
 * errors as the server writes them (`Code: N. DB::Exception: ...`, HTTP 500 and the code header,
 * also mid-stream, where the server too can only append the error and break off); GET `/ping`.
 *
 * What it does not: it is no real server process, so no network failures, restarts or resource
 * limits of one; there is no authentication (any user and password are accepted); one engine and
 * one data directory per process (a process's tests share it, each in its own database); no
 * replication, Keeper, clusters or Distributed tables (the ON CLUSTER DDL is tested on its text,
 * store/cluster-ddl.test.ts); no compression, sessions (session_id), progress headers, or
 * cancellation of a query when its client goes away (the engine finishes it). Against a real
 * server, the same suites run with LOGSTEAD_TEST_CLICKHOUSE_URL (README, Development).
 */

/** URL parameters that are not settings. */
const NOT_SETTINGS = new Set(['query', 'query_id', 'database', 'default_format', 'user', 'password', 'quota_key', 'session_id', 'session_timeout', 'session_check', 'role', 'compress', 'decompress', 'wait_end_of_query']);

/** Queries the engine can stream; everything else (DDL, mutations, SET) runs whole. */
const STREAMABLE = /^\s*(\(|SELECT\b|WITH\b)/i;

/** The INSERT the client sends for `client.insert`: its data then is the request body. */
const INSERT_WITH_DATA = /^\s*INSERT\s+INTO\s+([A-Za-z0-9_.]+)\s*\(([^)]*)\)\s*FORMAT\s+(\w+)\s*$/i;

const SESSIONS = 8;

const sqlString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const identifier = (name: string) => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;

interface ParsedRequest {
  query: string;
  /** An INSERT's rows, sent apart from the query. */
  data?: Buffer;
  params: Array<[string, string]>;
  settings: Array<[string, string]>;
  database: string;
  format: string;
  waitEnd: boolean;
  queryId: string;
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseRequest(request: http.IncomingMessage, url: URL): Promise<ParsedRequest> {
  const body = request.method === 'POST' ? await readBody(request) : Buffer.alloc(0);
  const fields = new Map<string, string>(url.searchParams);
  let query = url.searchParams.get('query') ?? '';
  let data: Buffer | undefined;
  if (request.headers['content-type']?.startsWith('multipart/form-data')) {
    const form = await new Request('http://local/', { method: 'POST', headers: { 'content-type': request.headers['content-type'] }, body }).formData();
    for (const [name, value] of form) if (typeof value === 'string') fields.set(name, value);
    query = fields.get('query') ?? query;
  } else if (body.length > 0) {
    if (query && INSERT_WITH_DATA.test(query)) data = body;
    else query = query ? `${query}\n${body.toString('utf8')}` : body.toString('utf8');
  }
  const params: Array<[string, string]> = [];
  const settings: Array<[string, string]> = [];
  for (const [name, value] of fields) {
    if (name.startsWith('param_')) params.push([name.slice('param_'.length), value]);
    else if (!NOT_SETTINGS.has(name)) settings.push([name, value]);
  }
  return {
    query,
    data,
    params,
    settings,
    database: fields.get('database') || 'default',
    format: fields.get('default_format') || 'TabSeparated',
    waitEnd: fields.get('wait_end_of_query') === '1',
    queryId: fields.get('query_id') || randomUUID(),
  };
}

/** The engine's error as the server reports it, with its numeric code. */
function engineError(error: unknown): { code: number; text: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = /^Code: (\d+)\./.exec(message)?.[1] ?? String((error as { clickhouseCode?: number })?.clickhouseCode ?? 1001);
  return { code: Number(code), text: message.startsWith('Code:') ? `${message}\n` : `Code: ${code}. DB::Exception: ${message}\n` };
}

export interface ChdbHttpServer {
  /** http://127.0.0.1:<port>, no database. */
  url: string;
  /** The engine's temporary data directory. */
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts the engine on a fresh temporary directory and serves it on a loopback port. The engine
 * takes one data directory per process, so a process starts this at most once.
 */
export async function startChdbHttpServer(): Promise<ChdbHttpServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-chdb-http-'));
  const idle: Session[] = [];
  const all: Session[] = [];
  const waiting: Array<(session: Session) => void> = [];
  const borrow = async (): Promise<Session> => {
    const free = idle.pop();
    if (free) return free;
    if (all.length < SESSIONS) {
      const session = new Session(dir, { connectionArgs: all.length === 0 ? ['--async_load_databases=0', ...ENGINE_ARGS] : ENGINE_ARGS });
      all.push(session);
      return session;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const giveBack = (session: Session) => {
    const next = waiting.shift();
    if (next) next(session);
    else idle.push(session);
  };

  async function answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local');
    if (url.pathname === '/ping') {
      response.end('Ok.\n');
      return;
    }
    const parsed = await parseRequest(request, url);
    const headers = { 'X-ClickHouse-Query-Id': parsed.queryId, 'X-ClickHouse-Format': parsed.format };
    const fail = (error: unknown) => {
      const { code, text } = engineError(error);
      if (!response.headersSent) {
        response.writeHead(500, { ...headers, 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) });
        response.end(text);
      } else {
        // Past the status line, the server too can only append the error and break off.
        response.end(text);
        response.socket?.destroy();
      }
    };
    const session = await borrow();
    try {
      // This request's database, settings and bindings, on a session no other request uses meanwhile.
      const prelude = [`USE ${identifier(parsed.database)}`];
      for (const [name, value] of parsed.settings) prelude.push(`SET ${identifier(name)} = ${sqlString(value)}`);
      for (const [name, value] of parsed.params) prelude.push(`SET ${identifier(`param_${name}`)} = ${sqlString(value)}`);
      await session.queryAsync(prelude.join(';\n'), { format: 'TabSeparated' });
      try {
        const insert = parsed.data ? INSERT_WITH_DATA.exec(parsed.query) : null;
        if (insert && parsed.data) {
          const columns = insert[2].split(',').map((column) => column.trim().replace(/^`|`$/g, ''));
          const written = await session.insert({ table: insert[1], columns, values: parsed.data, format: insert[3] as 'TabSeparated' });
          response.writeHead(200, { ...headers, 'X-ClickHouse-Summary': JSON.stringify({ written_rows: String(written.rowsWritten ?? 0) }) });
          response.end();
        } else if (STREAMABLE.test(parsed.query)) {
          await streamResult(session, parsed, headers, response);
        } else {
          const result = await session.queryAsync(parsed.query, { format: parsed.format });
          response.writeHead(200, { ...headers, 'X-ClickHouse-Summary': JSON.stringify({ written_rows: '0' }) });
          response.end(result.text());
        }
      } finally {
        if (parsed.settings.length > 0) {
          await session.queryAsync(parsed.settings.map(([name]) => `SET ${identifier(name)} = DEFAULT`).join(';\n'), { format: 'TabSeparated' });
        }
      }
    } catch (error) {
      fail(error);
    } finally {
      giveBack(session);
    }
  }

  // The server's own limit on the request line (http_max_uri_size), not Node's 16 KiB.
  const server = http.createServer({ maxHeaderSize: 1024 * 1024 }, (request, response) => {
    answer(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500, { 'X-ClickHouse-Exception-Code': '1001' });
      response.end(engineError(error).text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A test process ends when its tests do, not when this server is told to stop.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const session of all) session.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A SELECT's result: whole before the status with wait_end_of_query=1, else chunk by chunk. The
 * first chunk is awaited before the status either way, so a query that fails at once gets a 500.
 */
async function streamResult(session: Session, parsed: ParsedRequest, headers: Record<string, string>, response: http.ServerResponse): Promise<void> {
  const results = session.queryStream(parsed.query, { format: parsed.format });
  let gone = false;
  response.once('close', () => {
    gone = true;
  });
  try {
    const held: Buffer[] = [];
    let rows = 0;
    for await (const chunk of results) {
      rows += chunk.numRows;
      if (parsed.waitEnd || !response.headersSent) {
        held.push(Buffer.from(chunk.raw()));
        if (!parsed.waitEnd) {
          response.writeHead(200, headers);
          response.write(Buffer.concat(held.splice(0)));
        }
      } else if (!response.write(Buffer.from(chunk.raw()))) {
        // A client that stops reading and goes away never drains: its query is cancelled.
        await new Promise<void>((resolve) => {
          const done = () => {
            response.off('drain', done).off('close', done);
            resolve();
          };
          if (gone) resolve();
          else response.on('drain', done).on('close', done);
        });
      }
      if (gone || response.destroyed || !response.writable) break;
    }
    if (!response.headersSent) response.writeHead(200, { ...headers, 'X-ClickHouse-Summary': JSON.stringify({ read_rows: String(rows), written_rows: '0' }) });
    response.end(Buffer.concat(held));
  } finally {
    if (!results.closed) results.cancel();
  }
}

let shared: Promise<ChdbHttpServer> | undefined;

/** The process's one helper server, started on first use and stopped with the process. */
export function sharedChdbHttpServer(): Promise<ChdbHttpServer> {
  shared ??= startChdbHttpServer().then((server) => {
    // Synchronous at exit: the engine's files go with the process (chDB closes its sessions itself).
    process.once('exit', () => fs.rmSync(server.dir, { recursive: true, force: true }));
    return server;
  });
  return shared;
}
