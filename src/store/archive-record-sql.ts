/**
 * A stored line's export record (export-record.ts) as JSON text, built by the engine: the
 * archiver's objects are made of these, one a line, so the engine reads an hour, writes its records
 * and gzips them without a row reaching JavaScript (an archive must cost a small part of what
 * ingesting its lines cost: issue 29).
 *
 * It keeps exportRecord's shape and key order: the fields parsed from a JSON line first, then the
 * rarer source fields (`extra`), then the built-in keys, then meta; a parsed field named as a
 * built-in keeps its place with the built-in's value, as the object spread in exportRecord does.
 * Strings are escaped by the engine, which writes control characters in upper-case hex and escapes
 * U+2028 and U+2029, so such lines parse to the same record but are not the same bytes as
 * JSON.stringify's. Stored `fields`, `extra` and `meta` are JSON.stringify's text already (ingest),
 * so they are embedded as they are; where a key is replaced, the other values are the engine's
 * re-serialisation of them (again the same values).
 */

/** Settings the expression needs: `/` unescaped, as JSON.stringify leaves it; milliseconds as three digits. */
export const ARCHIVE_RECORD_SETTINGS = 'output_format_json_escape_forward_slashes = 0, formatdatetime_f_prints_scale_number_of_digits = 1';

const json = (column: string) => `toJSONString(${column})`;

/** The built-in keys in exportRecord's order, each with its JSON value. */
const BUILT_IN: Array<[string, string]> = [
  ['_id', `concat('"', toString(id), '"')`],
  ['_ts', `toString(toUnixTimestamp64Milli(ts))`],
  // toString gives 'YYYY-MM-DD hh:mm:ss.sss' (UTC, the column's zone), in a third of formatDateTime's time.
  ['timestamp', `concat('"', replaceOne(toString(ts), ' ', 'T'), 'Z"')`],
  ['_line', json('line')],
  ['_app', json('app')],
  ['_host', json('host')],
  ['_file', json('file')],
  ['_ip', json('ip')],
  ['_mac', json('mac')],
  ['_account', json('account')],
  ['_bid', json('batch_id')],
  ['_ingester', `'"logstead"'`],
  ['_logtype', json('logtype')],
  ['_mezmo_line_size', 'toString(size)'],
  ['level', json('level')],
  ['env', json('env')],
  ['tags', json('tags')],
];
/** meta as exportRecord gives it: the JSON it holds, or the text itself when it is not JSON (cut at the size limit). */
const META_VALUE = `if(meta != 'null' AND isValidJSON(meta), meta, ${json('meta')})`;
const UNINDEXED_VALUE = `toJSONString(if(meta_note = '', 'unknown', meta_note))`;
const HAS_META = `meta != ''`;
const HAS_UNINDEXED = `meta != '' AND NOT meta_indexed`;

/** Keys a parsed field may share with a built-in (or meta's) key: exportRecord gives the built-in's value. */
const SHARED_KEYS = [...BUILT_IN.map(([key]) => key), 'meta', '_metaUnindexed'];
const sqlArray = (values: string[]) => `[${values.map((value) => `'${value}'`).join(', ')}]`;

/** `"key":value` pairs of the built-ins, then meta's when the line has meta, as one comma-joined text. */
const builtInPairs = (skip: (key: string) => string | undefined) => {
  const pair = (key: string, value: string, when?: string) => {
    const condition = [when, skip(key)].filter(Boolean).join(' AND ');
    const text = `'"${key}":', ${value}`;
    return condition ? `if(${condition}, concat(',', ${text}), '')` : `',', ${text}`;
  };
  return [...BUILT_IN.map(([key, value]) => pair(key, value)), pair('meta', META_VALUE, HAS_META), pair('_metaUnindexed', UNINDEXED_VALUE, HAS_UNINDEXED)].join(', ');
};

/** No parsed fields (most lines): the built-ins alone. substring drops the leading comma. */
const PLAIN = `concat('{', substring(concat(${builtInPairs(() => undefined)}), 2), '}')`;

/** Parsed fields sharing no key with a built-in: their text without its closing brace, then the built-ins. */
const FIELDS_APART = `concat(substring(fields, 1, length(fields) - 1), if(fields = '{}', substring(concat(${builtInPairs(() => undefined)}), 2), concat(${builtInPairs(() => undefined)})), '}')`;

/**
 * Parsed fields of which one is named `level`, as a JSON line's own level often is (it keeps its
 * place and takes the stored level, as in exportRecord): the field's value is replaced through a
 * marker (\x01level\x02, which no JSON text holds raw). Other built-in names among the parsed
 * fields are rare and left to the general case: markers for all of them, each replaced in turn,
 * cost more than that case does.
 */
const FIELDS_MARKED = `if(fields != '' AND extra = '', arrayStringConcat(arrayMap(pair -> concat(toJSONString(pair.1), ':', if(pair.1 = 'level', '\\x01level\\x02', pair.2)), JSONExtractKeysAndValuesRaw(fields)), ','), '')`;
const FIELDS_WITH_LEVEL = `replaceOne(concat('{', archive_fields, ${builtInPairs((key) => (key === 'level' ? '0' : undefined))}, '}'), '\\x01level\\x02', ${json('level')})`;

/**
 * The general case (rarer source fields, `extra`, beside parsed ones): every key in order of first
 * appearance, each with its last value, as the spreads and assignments in exportRecord make them.
 */
const MERGED = (() => {
  const pairs = [
    `JSONExtractKeysAndValuesRaw(fields)`,
    `JSONExtractKeysAndValuesRaw(extra)`,
    `[${BUILT_IN.map(([key, value]) => `('${key}', ${value})`).join(', ')}]`,
    `if(${HAS_META}, [('meta', ${META_VALUE})], [])`,
    `if(${HAS_UNINDEXED}, [('_metaUnindexed', ${UNINDEXED_VALUE})], [])`,
  ];
  return `arrayStringConcat(['{', arrayStringConcat(arrayMap(key -> concat(toJSONString(key), ':', archive_pairs[arrayLastIndex(pair -> pair.1 = key, archive_pairs)].2), arrayDistinct(arrayMap(pair -> pair.1, archive_pairs))), ','), '}'])`.replace(
    /archive_pairs/g,
    `arrayConcat(${pairs.join(', ')})`,
  );
})();

/** Whether the parsed fields may share one of these keys: a cheap text search first, then the keys. */
const fieldsShare = (keys: string[]) => `(multiSearchAny(fields, ${sqlArray(keys.map((key) => `"${key}":`))}) AND hasAny(JSONExtractKeys(fields), ${sqlArray(keys)}))`;

/**
 * The select list that makes a line's export record as JSON text (`archive_record`) from the log
 * table's columns: select `archive_record` from a query over these.
 */
export const ARCHIVE_RECORD_COLUMNS = `${FIELDS_MARKED} AS archive_fields, multiIf(
  fields = '' AND extra = '', ${PLAIN},
  extra = '' AND NOT ${fieldsShare(SHARED_KEYS)}, ${FIELDS_APART},
  extra = '' AND NOT ${fieldsShare(SHARED_KEYS.filter((key) => key !== 'level'))}, ${FIELDS_WITH_LEVEL},
  ${MERGED}) AS archive_record`;
