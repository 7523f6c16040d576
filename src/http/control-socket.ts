import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { ApiError, errors } from './errors.js';

/**
 * How `logstead backup` and `logstead org usage` reach the server that owns a data directory (the
 * log engine admits one process per directory): a Unix socket inside it.
 * Only the directory's owner can reach it (the directory is 0700, the socket 0600), so it needs no
 * key and is never on the network; and finding it needs nothing but the data directory, which the
 * command already knows. Its answering is also how `logstead restore` tells a server is running.
 */
export const CONTROL_SOCKET = 'control.sock';

/** Socket paths are limited to about 104 bytes (macOS; 108 on Linux), including the terminator. */
const MAX_SOCKET_PATH_BYTES = 103;
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * What the socket answers: a handler per path (POST only), given the JSON body (undefined when it
 * is not JSON) and answering JSON. A handler throws an ApiError for the catalogue's answer; anything
 * else it throws is logged and answered as the catalogue's internal error.
 */
export type ControlHandlers = Record<string, (body: Record<string, unknown> | undefined) => Promise<unknown>>;

export interface ControlSocket {
  /** Stops taking requests and waits for one under way (a backup) to finish. */
  close(): Promise<void>;
}

/** The paths the server answers on it (backup/start.ts). */
export const BACKUP_PATH = '/backup';
export const USAGE_PATH = '/usage';
/** The address one-time links point at: LOGSTEAD_PUBLIC_URL of the server, or where it listens (`logstead member`). */
export const PUBLIC_URL_PATH = '/public-url';
/** Another process (`logstead import-mezmo`) changed an organisation's configuration in the database: the server re-reads it. */
export const CONFIG_CHANGED_PATH = '/config-changed';

const socketPath = (dataDir: string) => path.join(dataDir, CONTROL_SOCKET);
const usable = (file: string) => Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES;

function send(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
const sendError = (response: http.ServerResponse, error: ApiError) => send(response, error.statusCode, error.body);

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > MAX_REQUEST_BYTES) return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Listens on the data directory's control socket. Call only while holding the data directory (the
 * log engine's lock): a socket file left by a crashed server is then certainly stale and removed.
 */
export async function serveControlSocket(
  dataDir: string,
  handlers: ControlHandlers,
  log: { warn(message: string): void; error(object: unknown, message: string): void },
): Promise<ControlSocket> {
  const file = socketPath(dataDir);
  if (!usable(file)) {
    log.warn(`the data directory path is too long for its control socket: \`logstead backup\` and \`logstead org usage\` work only while the server is stopped`);
    return { close: async () => {} };
  }
  const server = http.createServer(async (request, response) => {
    const handler = request.method === 'POST' && request.url !== undefined && Object.hasOwn(handlers, request.url) ? handlers[request.url] : undefined;
    if (!handler) return sendError(response, errors.notFound());
    try {
      send(response, 200, await handler((await readJson(request)) as Record<string, unknown> | undefined));
    } catch (error) {
      if (error instanceof ApiError) return sendError(response, error);
      log.error({ err: error }, `control socket request ${request.url} failed`);
      sendError(response, errors.internal());
    }
  });
  fs.rmSync(file, { force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path: file, readableAll: false, writableAll: false }, resolve);
    });
    fs.chmodSync(file, 0o600);
  } catch (error) {
    log.warn(`the control socket ${file} could not be opened (${(error as Error).message}): \`logstead backup\` and \`logstead org usage\` work only while the server is stopped`);
    return { close: async () => {} };
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          fs.rmSync(file, { force: true });
          resolve();
        });
      }),
  };
}

/** The server's answer, or that no server listens on this data directory. */
export type ServerAnswer = { running: false } | { running: true; status: number; body: any };

const notListening = (error: NodeJS.ErrnoException) => error.code === 'ENOENT' || error.code === 'ECONNREFUSED';

/** What a command that opens the log engine itself throws when another process holds it. */
export class EngineInUse extends Error {
  /** `retry` says what to do once the server is stopped ("back up again"); `cause` is the engine's own error. */
  constructor(dataDir: string, retry: string, cause: unknown) {
    super(
      `The log store in ${dataDir} is in use, but no server answered on its control socket within ${SERVER_START_WAIT_MS / 1000} s: if a Logstead server runs there (and logged that its control socket could not be opened), stop it and ${retry} (${(cause as Error).message}).`,
    );
  }
}

/**
 * How long a command waits for a server that holds the log engine but does not answer on its
 * socket yet: one that is starting (its first retention pass runs before the socket opens).
 */
export const SERVER_START_WAIT_MS = 60_000;
const RETRY_MS = 250;

/**
 * Asks the running server; where none answers, does the work itself (`offline`, which throws
 * EngineInUse when the engine is locked). A locked engine with no socket yet is a server still
 * starting: this asks again until it answers or `waitMs` has passed, then throws the last EngineInUse.
 */
export async function askServerOrDoItOffline<T>(
  ask: () => Promise<ServerAnswer>,
  offline: () => Promise<T>,
  waitMs = SERVER_START_WAIT_MS,
): Promise<{ answer: ServerAnswer & { running: true } } | { offline: T }> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await ask();
    if (answer.running) return { answer };
    try {
      return { offline: await offline() };
    } catch (error) {
      if (!(error instanceof EngineInUse) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Asks the server owning `dataDir` to take a backup into `dir` (absolute); waits as long as it takes. */
export const askServerToBackUp = (dataDir: string, dir: string): Promise<ServerAnswer> => askServer(dataDir, BACKUP_PATH, { dir });

/** Asks the server owning `dataDir` for an organisation's usage (usage/usage.ts). */
export const askServerForUsage = (dataDir: string, account: string, range: { from?: string; to?: string }): Promise<ServerAnswer> =>
  askServer(dataDir, USAGE_PATH, { account, ...range });

/** Asks the server owning `dataDir` where its links point: `{publicUrl, from}` (backup/start.ts). */
export const askServerForPublicUrl = (dataDir: string): Promise<ServerAnswer> => askServer(dataDir, PUBLIC_URL_PATH, {});

/** Tells the server owning `dataDir` that `account`'s views and preset alerts changed underneath it. */
export const askServerToReloadConfig = (dataDir: string, account: string): Promise<ServerAnswer> => askServer(dataDir, CONFIG_CHANGED_PATH, { account });

function askServer(dataDir: string, requestPath: string, body: unknown): Promise<ServerAnswer> {
  const file = socketPath(dataDir);
  if (!usable(file)) return Promise.resolve({ running: false });
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: file, path: requestPath, method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('error', reject);
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = { error: text };
        }
        resolve({ running: true, status: response.statusCode ?? 0, body });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => (notListening(error) ? resolve({ running: false }) : reject(error)));
    request.end(JSON.stringify(body));
  });
}

/** Whether a server answers on the data directory's control socket. */
export function serverIsRunning(dataDir: string): Promise<boolean> {
  const file = socketPath(dataDir);
  if (!usable(file)) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => (notListening(error) ? resolve(false) : reject(error)));
  });
}
