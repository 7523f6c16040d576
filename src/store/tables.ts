/** The log table: the rows live in it, on a cluster in each node's replica of it. */
export const LOGS_TABLE = 'logs';

/** On a cluster, the Distributed table over every shard's LOGS_TABLE. */
export const LOGS_DISTRIBUTED_TABLE = 'logs_distributed';

/** Which log store migrations have been applied (migrations.ts). */
export const MIGRATIONS_TABLE = 'schema_migrations';

/** A ClickHouse string literal, for names in DDL (which takes no bound parameters). */
export const sqlString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * Where each kind of log SQL goes, embedded or on a cluster. On a cluster, the stored table keeps
 * the embedded table's name, so SQL about stored data (parts, partitions, mutations, the text
 * index's dictionary, which a search reads by table name on each shard) is the same text in both;
 * only reads and inserts name the Distributed table.
 *
 * Open on a cluster of several shards: a search ending in a prefix expands it from the text
 * index's dictionary before the search (LogStore.expanded, query/to-sql.ts), read on the node
 * Logstead talks to, so it sees that node's shard's tokens only. With one shard (any number of
 * replicas) this is exact; with more, it needs verifying on a real cluster.
 */
export interface LogTables {
  /** LOGSTEAD_CLICKHOUSE_CLUSTER, when set. */
  readonly cluster?: string;
  /** What reads and inserts name. */
  readonly reads: string;
  /** Where rows are stored: partitions are dropped and lines deleted here. */
  readonly stored: string;
  /** ` ON CLUSTER '<name>'` after a DDL or mutation's table, or ''. */
  readonly onCluster: string;
  /** The parts of the stored table: this engine's, or one replica's of every shard. */
  readonly parts: string;
  /** Running merges: this engine's, or every replica's. */
  readonly merges: string;
}

export function logTables(cluster?: string): LogTables {
  if (cluster === undefined) {
    return { reads: LOGS_TABLE, stored: LOGS_TABLE, onCluster: '', parts: 'system.parts', merges: 'system.merges' };
  }
  const name = sqlString(cluster);
  return {
    cluster,
    reads: LOGS_DISTRIBUTED_TABLE,
    stored: LOGS_TABLE,
    onCluster: ` ON CLUSTER ${name}`,
    parts: `cluster(${name}, system.parts)`,
    merges: `clusterAllReplicas(${name}, system.merges)`,
  };
}
