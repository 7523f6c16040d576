import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, openEmbeddedConfigFile } from '../repository/snapshot.js';
import { openChdbExecutor } from '../store/chdb-executor.js';
import { countSnapshotLines } from '../store/snapshot.js';
import { EngineInUse, askServerOrDoItOffline, askServerToBackUp } from '../http/control-socket.js';
import { type Manifest, writeManifest } from './manifest.js';
import { BackupRefused, LOGS_SNAPSHOT, type WrittenBackup, writeBackup } from './write-backup.js';

/** The log engine's directory inside a data directory (as the server opens it, app.ts). */
export const LOGS_DIR = 'clickhouse';

/** Opens a stopped data directory's stores just to copy them: no migrations, nothing changed. */
async function backUpStopped(dataDir: string, target: string): Promise<WrittenBackup> {
  let executor;
  try {
    executor = await openChdbExecutor(path.join(dataDir, LOGS_DIR));
  } catch (error) {
    throw new EngineInUse(dataDir, 'back up again', error);
  }
  const configDb = openEmbeddedConfigFile(dataDir);
  try {
    return await writeBackup({ executor, configDb, dataDir }, target);
  } finally {
    configDb.close();
    await executor.close();
  }
}

/**
 * `logstead backup <dir>`: the running server takes the snapshot (it owns the log engine, which
 * admits one process per directory); with no server, this process takes it. Either way the
 * snapshot is then read back in a scratch engine to count its lines, and the manifest written last.
 */
export async function backUp(dataDir: string, target: string): Promise<Manifest> {
  if (!fs.existsSync(path.join(dataDir, CONFIG_FILE))) {
    throw new BackupRefused(`No Logstead data directory at ${dataDir}. Run this where you run \`npm start\`, or set LOGSTEAD_DATA_DIR.`);
  }
  let outcome;
  try {
    outcome = await askServerOrDoItOffline(() => askServerToBackUp(dataDir, target), () => backUpStopped(dataDir, target));
  } catch (error) {
    throw error instanceof EngineInUse ? new BackupRefused(error.message) : error;
  }
  let written: WrittenBackup;
  if ('answer' in outcome) {
    const { answer } = outcome;
    if (answer.status !== 200) throw new BackupRefused(String(answer.body?.error ?? `the server answered ${answer.status}`));
    written = answer.body as WrittenBackup;
  } else {
    written = outcome.offline;
  }
  let lines: number;
  try {
    lines = await countSnapshotLines(path.join(target, LOGS_SNAPSHOT));
  } catch (error) {
    throw new Error(`The backup in ${target} was written but does not read back, so it is left unfinished (no manifest): ${(error as Error).message}`);
  }
  return writeManifest(target, { taken: 'answer' in outcome ? 'online' : 'offline', lines, ...written });
}
