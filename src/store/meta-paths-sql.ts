/**
 * The meta field paths a stored line carries, as the engine reads them from its `meta` text: the
 * same paths the meta type registry names (forEachMetaField in src/meta-fields/meta-types.ts),
 * so a listing built from stored lines (GET /v1/config/meta-fields for a reader with an access
 * scope) can be matched against the registry's names. Like the registry:
 * - keys are joined with '.' three levels deep; a value at the third level is a leaf whatever it
 *   holds, an object included;
 * - an object above the third level is descended into, so an empty one names nothing;
 * - a null value names nothing; arrays, strings, numbers and booleans are leaves.
 * A NUL in a key comes back as NUL (the registry records U+FFFD): the caller replaces it.
 * Meta that is not a JSON object gives no path.
 */

const notNull = (pairs: string, name: string) => `arrayFilter(${name} -> JSONType(${name}.2) != 'Null', ${pairs})`;

const third = `arrayMap(kv3 -> concat(kv1.1, '.', kv2.1, '.', kv3.1), ${notNull('JSONExtractKeysAndValuesRaw(kv2.2)', 'kv3')})`;
const second = `arrayFlatten(arrayMap(kv2 -> if(JSONType(kv2.2) = 'Object', ${third}, [concat(kv1.1, '.', kv2.1)]), ${notNull('JSONExtractKeysAndValuesRaw(kv1.2)', 'kv2')}))`;

/** Array(String): the paths of one line's `meta` column. */
export const META_FIELD_PATHS = `arrayFlatten(arrayMap(kv1 -> if(JSONType(kv1.2) = 'Object', ${second}, [kv1.1]), ${notNull('JSONExtractKeysAndValuesRaw(meta)', 'kv1')}))`;
