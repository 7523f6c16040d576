import fs from 'node:fs';
import path from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'logstead-backup';
const FORMAT_VERSION = 1;

/** What a backup directory holds; written last, so a directory without it is not a finished backup. */
export interface Manifest {
  format: typeof FORMAT;
  version: typeof FORMAT_VERSION;
  createdAt: string;
  /** Taken from a running server (online) or from a stopped data directory (offline). */
  taken: 'online' | 'offline';
  /** Entries of the backup directory besides this file, e.g. config.sqlite, clickhouse. */
  contents: string[];
  /** Lines in the log table of the snapshot, counted from the snapshot itself. */
  lines: number;
  /** SQLite user_version of config.sqlite. */
  configSchemaVersion: number;
  /** The ClickHouse version that wrote the log snapshot. */
  engineVersion: string;
}

export type ManifestFields = Omit<Manifest, 'format' | 'version' | 'createdAt'>;

export function writeManifest(dir: string, fields: ManifestFields, createdAt = new Date()): Manifest {
  const manifest: Manifest = { format: FORMAT, version: FORMAT_VERSION, createdAt: createdAt.toISOString(), ...fields };
  const file = path.join(dir, MANIFEST_FILE);
  fs.writeFileSync(`${file}.partial`, JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(`${file}.partial`, file);
  return manifest;
}

/** Reads a backup's manifest, or says in plain words why `dir` is not a backup this build restores. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${dir} is not a finished Logstead backup: it has no ${MANIFEST_FILE}.`);
    }
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  if (manifest?.format !== FORMAT || typeof manifest.version !== 'number') {
    throw new Error(`${file} does not describe a Logstead backup.`);
  }
  if (manifest.version > FORMAT_VERSION) {
    throw new Error(`${dir} was written by a newer Logstead (backup format ${manifest.version}); restore it with that version.`);
  }
  const contents = Array.isArray(manifest.contents) ? manifest.contents : [];
  for (const entry of contents) {
    if (typeof entry !== 'string' || entry.includes('/') || entry.startsWith('.') || !fs.existsSync(path.join(dir, entry))) {
      throw new Error(`${dir} is incomplete: its manifest lists "${String(entry)}", which is missing.`);
    }
  }
  return manifest as Manifest;
}
