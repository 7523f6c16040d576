import type Database from 'better-sqlite3';
import type { Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import { claimNodeSlot } from './node-slot.js';
import { type ConfigKysely, openConfigDatabase } from './open.js';

export interface Repository extends Subsystem {
  db: ConfigKysely;
  /** True on PostgreSQL, which several nodes share; false on the embedded SQLite file. */
  shared: boolean;
  /** The embedded file's connection, for what only SQLite can do (online backup); absent on PostgreSQL. */
  sqlite?: Database.Database;
  /** This node's slot (node-slot.ts). */
  nodeSlot: number;
}

/**
 * The config repository: the one database every subsystem keeps its state in (SQLite in the data
 * directory, or PostgreSQL with LOGSTEAD_DATABASE_URL), brought to this build's schema.
 */
export async function startRepository(settings: Pick<Settings, 'dataDir' | 'databaseUrl'>): Promise<Repository> {
  const { database } = await openConfigDatabase(settings);
  const shared = database.dialect === 'postgres';
  try {
    return { db: database.db, shared, sqlite: database.sqlite, nodeSlot: await claimNodeSlot(database.db, shared), close: () => database.close() };
  } catch (error) {
    await database.close();
    throw error;
  }
}
