import { parseArgs } from 'node:util';
import { loadSettings } from '../settings.js';
import { CopyRefused, DEFAULT_BATCH_LINES, copyTargets, copyToCluster } from './copy-to-cluster.js';

export const COPY_TO_CLUSTER_USAGE =
  'Usage: logstead copy-to-cluster --database-url postgres://... --clickhouse-url http://user:pass@host:8123/db [--clickhouse-cluster <name>] [--batch-lines <n>]';

/**
 * The CLI's side of `logstead copy-to-cluster`: the source is LOGSTEAD_DATA_DIR (default ./data),
 * the targets come as options. Progress goes to stderr, the summary as JSON to stdout.
 */
export async function copyToClusterCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'database-url': { type: 'string' },
        'clickhouse-url': { type: 'string' },
        'clickhouse-cluster': { type: 'string' },
        'batch-lines': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new CopyRefused(`${(error as Error).message}\n${COPY_TO_CLUSTER_USAGE}`);
  }
  if (!values['database-url'] || !values['clickhouse-url']) throw new CopyRefused(COPY_TO_CLUSTER_USAGE);
  const batchLines = values['batch-lines'] === undefined ? DEFAULT_BATCH_LINES : Number(values['batch-lines']);
  if (!Number.isSafeInteger(batchLines) || batchLines < 1) throw new CopyRefused(`--batch-lines is a whole number of lines, not "${values['batch-lines']}".`);
  const targets = copyTargets({ databaseUrl: values['database-url'], clickhouseUrl: values['clickhouse-url'], clickhouseCluster: values['clickhouse-cluster'] });
  const { dataDir } = loadSettings();
  const summary = await copyToCluster({
    dataDir,
    databaseUrl: targets.databaseUrl!,
    clickhouseUrl: targets.clickhouseUrl!,
    clickhouseCluster: targets.clickhouseCluster,
    batchLines,
    report: (message) => console.error(message),
  });
  console.log(JSON.stringify(summary));
}
