/**
 * An Elasticsearch document as a line of `/logs/ingest` (src/ingest/normalise.ts reads it from
 * there): `message`, else `log`, else `_line` is the line; `host.name` or `host` the host;
 * `service.name` or `app` the app; `log.level` or `level` the level; `@timestamp` (else `timestamp`, as Vector's bulk mode
 * sends it) the time. Each
 * field is read nested (`{"host":{"name":...}}`, as ECS shippers send) or dotted (`"host.name"`).
 * What is taken out is removed from the document; everything else is the line's meta, with its
 * types, and the index the document was sent to is `_index` in the meta. A document with no line
 * field is stored whole, as its JSON, as the line.
 */

type Doc = Record<string, unknown>;

const isObject = (value: unknown): value is Doc => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Takes a field out of the document: dotted key first, then the nested path; empties left behind go too. */
function take(doc: Doc, path: string, accept: (value: unknown) => boolean): unknown {
  if (Object.hasOwn(doc, path) && accept(doc[path])) {
    const value = doc[path];
    delete doc[path];
    return value;
  }
  const [head, ...rest] = path.split('.');
  if (rest.length === 0 || !Object.hasOwn(doc, head) || !isObject(doc[head])) return undefined;
  const inner = doc[head] as Doc;
  const value = take(inner, rest.join('.'), accept);
  if (value !== undefined && Object.keys(inner).length === 0) delete doc[head];
  return value;
}

const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '';
const isLine = (value: unknown) => value !== undefined && value !== null;
const isTime = (value: unknown) => typeof value === 'string' || typeof value === 'number';

/** The Mezmo-shaped line for a document sent to `index`. The document is taken apart: it is not used after. */
export function documentToLine(doc: Doc, index: string): Record<string, unknown> {
  const whole = JSON.stringify(doc);
  const line = take(doc, 'message', isLine) ?? take(doc, 'log', (value) => typeof value === 'string') ?? take(doc, '_line', isLine);
  const host = take(doc, 'host.name', isText) ?? take(doc, 'host', isText);
  const app = take(doc, 'service.name', isText) ?? take(doc, 'app', isText);
  const level = take(doc, 'log.level', isText) ?? take(doc, 'level', isText);
  const timestamp = take(doc, '@timestamp', isTime) ?? take(doc, 'timestamp', isTime);
  const meta: Doc = { ...doc, _index: index };
  return { line: line ?? whole, host, app, level, timestamp, meta };
}
