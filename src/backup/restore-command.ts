import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, checkConfigSnapshot, restoreConfig } from '../repository/snapshot.js';
import { openChdbExecutor } from '../store/chdb-executor.js';
import { countLines, restoreLogDatabase } from '../store/snapshot.js';
import { LOGS_DIR } from './backup-command.js';
import { serverIsRunning } from '../http/control-socket.js';
import { type Manifest, readManifest } from './manifest.js';
import { BackupRefused, LOGS_SNAPSHOT, SMALL_FILES } from './write-backup.js';

export interface Restored {
  dataDir: string;
  from: string;
  lines: number;
  createdAt: string;
}

/** What in the data directory a restore would replace. */
const heldData = (dataDir: string) => [CONFIG_FILE, LOGS_DIR, ...SMALL_FILES].filter((name) => fs.existsSync(path.join(dataDir, name)));

/**
 * `logstead restore <dir>`: puts a backup in place of a stopped server's data directory. Everything
 * that can be checked is checked before anything is changed: the backup is finished and readable
 * by this build, no server answers on the directory, and the directory holds no data unless
 * `force` says to replace it. The log engine's lock is held throughout, so a server started
 * meanwhile cannot open the directory half restored. Schema upgrades run at the next start.
 */
export async function restore(dataDir: string, source: string, options: { force: boolean }): Promise<Restored> {
  let manifest: Manifest;
  try {
    manifest = readManifest(source);
  } catch (error) {
    throw new BackupRefused((error as Error).message);
  }
  if (!manifest.contents.includes(LOGS_SNAPSHOT) || !manifest.contents.includes(CONFIG_FILE)) {
    throw new BackupRefused(`${source} lacks the logs or the configuration; it cannot be restored.`);
  }
  checkConfigSnapshot(path.join(source, CONFIG_FILE));
  if (await serverIsRunning(dataDir)) {
    throw new BackupRefused(`A Logstead server is running on ${dataDir}. Stop it, then restore.`);
  }
  const held = heldData(dataDir);
  if (held.length > 0 && !options.force) {
    throw new BackupRefused(`${dataDir} already holds data (${held.join(', ')}). Restoring replaces it; add --force if that is what you want.`);
  }

  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let executor;
  try {
    executor = await openChdbExecutor(path.join(dataDir, LOGS_DIR));
  } catch (error) {
    throw new BackupRefused(`The log store in ${dataDir} is in use by another process (a Logstead server?); stop it, then restore (${(error as Error).message}).`);
  }
  try {
    await restoreLogDatabase(executor, path.join(source, LOGS_SNAPSHOT));
    const lines = await countLines(executor);
    if (lines !== manifest.lines) {
      throw new Error(`The restored logs hold ${lines} lines, but the backup says ${manifest.lines}; the configuration was left as it was.`);
    }
    restoreConfig(path.join(source, CONFIG_FILE), dataDir);
    for (const name of SMALL_FILES) {
      fs.rmSync(path.join(dataDir, name), { force: true });
      if (!manifest.contents.includes(name)) continue;
      fs.copyFileSync(path.join(source, name), path.join(dataDir, name));
      fs.chmodSync(path.join(dataDir, name), 0o600);
    }
    return { dataDir, from: source, lines, createdAt: manifest.createdAt };
  } finally {
    await executor.close();
  }
}
