import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunningLogstead, type StartOptions, startLogstead } from '../app.js';
import type { Accounts, NewAccount } from '../accounts/accounts.js';
import { loadSettings } from '../settings.js';
import type { Role } from '../http/permissions.js';
import { addMember } from '../people/member-command.js';
import { Members } from '../people/members.js';
import { testEngineEnv } from './log-engine.js';
import { dropTestPostgres, testConfigDialect, testConfigEnv } from './config-database.js';

export interface TestServer {
  url: string;
  dataDir: string;
  running: RunningLogstead;
  /** Stops the server cleanly and starts it again on the same data directory, with `env` added to its settings when given. */
  restart(env?: Record<string, string>): Promise<void>;
  /** The organisation created on first start. */
  org: NewAccount;
  /** Creates another organisation through the real config store. */
  createOrg(name: string): Promise<NewAccount>;
  /**
   * A member of `account` (default: the first organisation) with this role and groups and a
   * password, signed in: the session cookie and CSRF token, as the viewer holds them.
   */
  signInAs(email: string, role: Role, options?: { account?: string; groups?: string[]; password?: string }): Promise<MemberSession>;
  /** Works on the organisations and keys through the running server's own configuration store. */
  withAccounts<T>(work: (accounts: Accounts) => T | Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A real Logstead on a free loopback port and a fresh temporary data directory, its lines in the
 * log engine this run tests (log-engine.ts) and its configuration in the database it tests
 * (config-database.ts).
 */
export async function startTestServer(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-test-'));
  // On PostgreSQL, as on a cluster, stored secrets need a key that every node shares.
  const secretKey = testConfigDialect === 'postgres' ? { LOGSTEAD_SECRET_KEY: randomBytes(32).toString('hex') } : {};
  const startEnv = { LOGSTEAD_PORT: '0', LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_LOG_LEVEL: 'warn', ...secretKey, ...(await testEngineEnv(dataDir)), ...(await testConfigEnv(dataDir)), ...env };
  let settings = loadSettings(startEnv);
  let running = await startLogstead(settings, options);
  if (!running.firstStart) throw new Error('a fresh data directory should create the default organisation');
  const withAccounts = async <T>(work: (accounts: Accounts) => T | Promise<T>): Promise<T> => work(running.accounts);
  const server: TestServer = {
    url: running.url,
    dataDir,
    running,
    async restart(changed) {
      await running.close();
      // A setting that names something the first start created (an organisation's id) can only be given now.
      if (changed) settings = loadSettings({ ...startEnv, ...changed });
      running = await startLogstead(settings, options);
      server.running = running;
      server.url = running.url;
    },
    org: running.firstStart,
    withAccounts,
    createOrg: (name) => withAccounts((accounts) => accounts.createAccount(name)),
    async signInAs(email, role, options = {}) {
      const account = options.account ?? server.org.account;
      const password = options.password ?? `password of ${email}`;
      const { link } = await addMember(running.db, { account, email, role }, { publicUrl: running.url, inviteHours: 1 });
      if (options.groups) await new Members(running.db).update(account, email, { groups: options.groups }, { by: 'owner' });
      const token = new URL(link).searchParams.get('token')!;
      const reply = await request(`${running.url}/api/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password }) });
      if (reply.status !== 200) throw new Error(`signing in as ${email} failed: ${reply.status} ${reply.text}`);
      const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0];
      return { email, role, account, password, cookie, csrf: reply.json.csrfToken, headers: (write = false) => ({ cookie, ...(write ? { 'x-csrf-token': reply.json.csrfToken } : {}) }) };
    },
    async close() {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (testConfigDialect === 'postgres' && !env.LOGSTEAD_DATABASE_URL) await dropTestPostgres(dataDir);
    },
  };
  return server;
}

/** A member signed in through the real password flow (TestServer.signInAs). */
export interface MemberSession {
  email: string;
  role: Role;
  account: string;
  password: string;
  /** `logstead_session=...`, for a Cookie header. */
  cookie: string;
  csrf: string;
  /** The Cookie header, and with `write` the x-csrf-token a state-changing call needs. */
  headers(write?: boolean): Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** fetch, with the body read and decoded when it is JSON. */
export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A call to the API at `base`, with these headers (a key's or a session's), the body sent as JSON when given. */
export function callJson(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return request(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Parses a JSON Lines body. */
export const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

/** Sends lines to a test server as an agent does (POST /logs/ingest), and fails unless it answers 200. */
export async function ingestLines(server: TestServer, hostname: string, lines: Array<Record<string, unknown>>): Promise<void> {
  const reply = await request(`${server.url}/logs/ingest?hostname=${encodeURIComponent(hostname)}`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  if (reply.status !== 200) throw new Error(`ingest answered ${reply.status}: ${reply.text}`);
}

/** The records a query finds from `from` to a minute from now, through GET /v1/export. */
export async function exportRecords(server: TestServer, query: string, from: number): Promise<Array<Record<string, any>>> {
  const reply = await request(`${server.url}/v1/export?from=${from}&to=${Date.now() + 60_000}&query=${encodeURIComponent(query)}`, { headers: { servicekey: server.org.serviceKey } });
  if (reply.status !== 200) throw new Error(`export answered ${reply.status}: ${reply.text}`);
  return jsonLines(reply.text);
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, ms = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
