import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LOGSTEAD_BIN = fileURLToPath(new URL('../../../bin/logstead.js', import.meta.url));

export interface Started {
  child: ChildProcess;
  url: string;
}

/** Spawns a Node script and waits for it to print "listening on <url>". */
export function startProcess(script: string, args: string[], env: Record<string, string>): Promise<Started> {
  return startCommand(process.execPath, [script, ...args], env);
}

/**
 * `logstead serve`, started as `npx logstead serve` starts it: the bin script itself, so the Node
 * flags on its #! line apply as they do for users. `serverDir` runs another built checkout's
 * server instead (to compare a change with the commit before it).
 */
export function startLogsteadServer(env: Record<string, string>, serverDir?: string): Promise<Started> {
  const bin = serverDir ? path.resolve(serverDir, 'bin/logstead.js') : LOGSTEAD_BIN;
  return startCommand(bin, ['serve'], { LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn', ...env });
}

/** Spawns a command and waits for it to print "listening on <url>". */
export async function startCommand(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/i.exec(output);
    if (match) return { child, url: match[1] };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${command} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}
