import { elasticErrors, elasticItemErrors } from '../../http/errors.js';

/**
 * The bulk API's body: newline-delimited JSON, an action line (`{"index":{...}}`) followed, for
 * `index`, `create` and `update`, by a document line. Parsing is all or nothing: a line that is not
 * JSON, an action line that is not an action, or a document missing at the end refuses the whole
 * request (an ElasticError, 400), so nothing of it is stored. Well-formed actions that Logstead does
 * not store (`delete`, `update`, or an action it does not know) become items with an error of their
 * own, and the others are stored.
 */

export type BulkItem =
  | { action: 'index' | 'create'; index: string; id: string | undefined; doc: Record<string, unknown> }
  | { action: string; index: string | undefined; id: string | undefined; error: { type: string; reason: string } };

const STORED = new Set(['index', 'create']);
/** Actions Elasticsearch knows, with whether a document line follows. */
const KNOWN: Record<string, boolean> = { index: true, create: true, update: true, delete: false };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `{"<action>": {...metadata}}`: one key, whose value is an object. */
function asAction(value: unknown): { name: string; meta: Record<string, unknown> } | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || !isObject(value[keys[0]])) return undefined;
  return { name: keys[0], meta: value[keys[0]] as Record<string, unknown> };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** The body's non-blank lines, each parsed; `\r\n` endings are taken as the clients send them. */
function parseLines(body: Buffer): unknown[] {
  const parsed: unknown[] = [];
  const source = body.toString('utf8');
  let start = 0;
  let number = 0;
  while (start <= source.length) {
    let end = source.indexOf('\n', start);
    if (end < 0) end = source.length;
    number++;
    const line = source.slice(start, end).trim();
    start = end + 1;
    if (line === '') continue;
    try {
      parsed.push(JSON.parse(line));
    } catch (error) {
      throw elasticErrors.malformedBulk(`line [${number}] of the bulk body is not JSON (${(error as Error).message})`);
    }
  }
  return parsed;
}

/** Reads a bulk body; `pathIndex` is the `{index}` of `POST /{index}/_bulk`, the default for actions that name none. */
export function parseBulk(body: Buffer | undefined, pathIndex: string | undefined): BulkItem[] {
  if (!body || body.length === 0) throw elasticErrors.invalidRequest('no requests added');
  const lines = parseLines(body);
  if (lines.length === 0) throw elasticErrors.invalidRequest('no requests added');
  const items: BulkItem[] = [];
  for (let at = 0; at < lines.length; at++) {
    const action = asAction(lines[at]);
    if (!action) throw elasticErrors.malformedBulk(`Malformed action/metadata line [${at + 1}], expected an object with one action (index, create, update or delete)`);
    const index = text(action.meta._index) ?? pathIndex;
    const id = text(action.meta._id);
    // Whether a document line follows: known for Elasticsearch's actions; for an unknown one, when
    // the next line is not itself an action.
    const hasDocument = KNOWN[action.name] ?? (at + 1 < lines.length && !asAction(lines[at + 1]));
    let doc: unknown;
    if (hasDocument) {
      if (at + 1 >= lines.length) throw elasticErrors.malformedBulk(`the action on line [${at + 1}] has no document line after it (a truncated body?)`);
      doc = lines[++at];
    }
    if (!STORED.has(action.name)) {
      items.push({ action: action.name, index, id, error: elasticItemErrors.unsupportedAction(action.name) });
      continue;
    }
    if (index === undefined) throw elasticErrors.invalidRequest('index is missing');
    if (!isObject(doc)) throw elasticErrors.malformedBulk(`the document on line [${at + 1}] is not a JSON object`);
    items.push({ action: action.name as 'index' | 'create', index, id, doc });
  }
  return items;
}
