import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from './harness.js';

/** The real command-line entry point, as users run it. */
export const BIN = fileURLToPath(new URL('../../../bin/logstead.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * Servers still running when a test file ends. A test that fails before it stops its server would
 * otherwise leave the server holding the file's pipes open, and the test run would wait for it
 * forever; each server leads its own process group, so `npm start`'s grandchild goes too.
 */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Starts `logstead serve` (or another command) as a real process and waits until /healthz answers. */
export async function serveProcess(
  dataDir: string,
  env: Record<string, string> = {},
  command = [process.execPath, BIN, 'serve'],
  /** Sees the server's output as it comes, before it listens (a test may act on a message). */
  watch?: (output: string) => void,
): Promise<ServerProcess> {
  const child = spawn(command[0], command.slice(1), {
    cwd: path.dirname(path.dirname(BIN)),
    env: { ...process.env, LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  const take = (chunk: Buffer) => {
    output += chunk;
    watch?.(output);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match) {
      const health = await request(`${match[1]}/healthz`);
      assert.equal(health.status, 200);
      return { child, url: match[1], output: () => output };
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`logstead did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** How a child process ended, once it has. */
export const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
