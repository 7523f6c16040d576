/**
 * The keys an export record (store/export-record.ts) sets itself. Every other top-level key of a
 * record is a field the line carries: parsed from a JSON line, by a format parser (nginx, logfmt...)
 * or by a custom parsing rule, stored in the `fields` column that field searches read; or one of
 * EXTRA_RECORD_KEYS. The viewer reads a line's fields from the record by these lists, so every
 * stored field is shown whatever format the line arrived in.
 */
export const EXPORT_RECORD_KEYS: readonly string[] = [
  '_id', '_ts', 'timestamp', '_line', '_app', '_host', '_file', '_ip', '_mac', '_account', '_bid',
  '_ingester', '_logtype', '_mezmo_line_size', 'level', 'env', 'tags', 'meta', '_metaUnindexed',
];

/**
 * The rarer source fields an agent sends beside a line (ingest/extra-fields.ts, the `extra`
 * column), also at the record's top level. Field searches do not read them.
 */
export const EXTRA_RECORD_KEYS: readonly string[] = ['pid', 'prival', 'containerid', 'label', 'annotation'];
