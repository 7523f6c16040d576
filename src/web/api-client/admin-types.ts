/**
 * The answers of the keys and archive APIs as the settings pages read them. They mirror the
 * server's own shapes (src/accounts/key-routes.ts, src/archive/archive-routes.ts, restore-routes.ts).
 */

/** GET /v1/config/keys: a key without its secret, with the rights it holds now. */
export interface KeyInfo {
  id: string;
  name: string;
  type: 'ingestion' | 'service';
  /** Unix ms. */
  created: number;
  /** Who made it over the API; null for a key of full rights (or made on the command line). */
  maker: string | null;
  /** "ingestion" for an ingestion key, else the role it holds now (its maker's); null when its maker is gone. */
  role: string | null;
  scope: string[] | null;
}

/** POST /v1/config/keys: the one answer that carries the key itself. */
export interface CreatedKey extends KeyInfo {
  key: string;
}

/** GET /v1/config/archiving: the archive's configuration, never its secret key. */
export interface ArchiveConfig {
  integration: 's3' | 'ibm' | 'dos';
  bucket: string;
  endpoint?: string;
  region?: string;
  accesskey: string;
  forcepathstyle: boolean;
}

/** What POST and PUT /v1/config/archiving take; without `secretkey`, PUT keeps the stored one. */
export interface ArchiveConfigBody extends ArchiveConfig {
  secretkey?: string;
}

/** GET /v1/archive/status: the archiver's progress and its newest files. */
export interface ArchiveStatus {
  configured: boolean;
  configuredAt?: number;
  hoursDueBefore?: string;
  pending: number;
  failing: number;
  files: Array<{ object: string; hour: string; status: 'pending' | 'written'; lines?: number; bytes?: number | null; attempts: number; lastError: string | null; writtenAt: number | null }>;
}
