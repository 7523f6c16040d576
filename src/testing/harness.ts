import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunningLogstead, type StartOptions, startLogstead } from '../app.js';
import type { Accounts, NewAccount } from '../accounts/accounts.js';
import { loadSettings } from '../settings.js';
import { testEngineEnv } from './log-engine.js';
import { dropTestPostgres, testConfigDialect, testConfigEnv } from './config-database.js';

export interface TestServer {
  url: string;
  dataDir: string;
  running: RunningLogstead;
  /** Stops the server cleanly and starts it again on the same data directory. */
  restart(): Promise<void>;
  /** The organisation created on first start. */
  org: NewAccount;
  /** Creates another organisation through the real config store. */
  createOrg(name: string): Promise<NewAccount>;
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
  const settings = loadSettings({ LOGSTEAD_PORT: '0', LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_LOG_LEVEL: 'warn', ...(await testEngineEnv(dataDir)), ...(await testConfigEnv(dataDir)), ...env });
  let running = await startLogstead(settings, options);
  if (!running.firstStart) throw new Error('a fresh data directory should create the default organisation');
  const withAccounts = async <T>(work: (accounts: Accounts) => T | Promise<T>): Promise<T> => work(running.accounts);
  const server: TestServer = {
    url: running.url,
    dataDir,
    running,
    async restart() {
      await running.close();
      running = await startLogstead(settings, options);
      server.running = running;
      server.url = running.url;
    },
    org: running.firstStart,
    withAccounts,
    createOrg: (name) => withAccounts((accounts) => accounts.createAccount(name)),
    async close() {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (testConfigDialect === 'postgres' && !env.LOGSTEAD_DATABASE_URL) await dropTestPostgres(dataDir);
    },
  };
  return server;
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

export const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Parses a JSON Lines body. */
export const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

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
