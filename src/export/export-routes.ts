import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type ServiceAuth, setterOf } from '../http/service-auth.js';
import { errors } from '../http/errors.js';
import type { LogStore } from '../store/log-store.js';
import type { StoredLine } from '../store/types.js';
import { decodeCursor, encodeCursor, fingerprint } from './cursor.js';
import type { EmailExports } from './email-export.js';
import { type QueryParams, choiceParam, oneParam } from '../http/filter-params.js';
import type { ArchiveSearch } from '../archive/archive-search.js';
import { PrivateArchiveEndpoint } from '../archive/endpoint-check.js';
import type { AccessScope } from '../query/access-scope.js';
import { parseExportRequest } from './params.js';
import { exportRecord } from '../store/export-record.js';

export interface ExportDeps {
  auth: ServiceAuth;
  store: LogStore;
  emailExports: EmailExports;
  /** False when no SMTP server is configured: e-mail exports are refused up front. */
  canEmail: boolean;
  /** `source=archive`: the organisation's archive bucket (src/archive). */
  archive: Pick<ArchiveSearch, 'configured' | 'read'>;
}

/** `source=archive` (a Logstead addition) searches the archive bucket instead of the store. */
const fromArchive = (query: QueryParams) => choiceParam(query, 'source', ['store', 'archive'], 'store') === 'archive';

/** The archive's matching lines, refused clearly when the organisation does not archive or its bucket cannot be read. */
async function archivedLines(deps: ExportDeps, account: string, scope: AccessScope, query: QueryParams, request: ExportRequestShape, after?: { ts: number; id: string }): Promise<StoredLine[]> {
  if (!(await deps.archive.configured(account))) throw errors.archiveNotConfigured();
  const text = oneParam(query, 'query') ?? oneParam(query, 'q') ?? '';
  try {
    return await deps.archive.read(
      account,
      { ...request.filter, query: text, scope },
      { prefer: request.prefer, limit: request.limit, after, chronological: request.chronological },
    );
  } catch (error) {
    if (error instanceof PrivateArchiveEndpoint) throw errors.archivePrivateEndpoint(error.host === error.address ? error.host : `${error.host} (${error.address})`);
    throw errors.archiveReadFailed(error instanceof Error ? error.message.split('\n')[0].slice(0, 500) : String(error));
  }
}

interface ExportRequestShape {
  filter: { fromMs: number; toMs: number; hosts?: string[]; apps?: string[]; levels?: string[]; tags?: string[] };
  prefer: 'head' | 'tail';
  limit: number;
  chronological: boolean;
}

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;

async function* jsonLines(chunks: AsyncIterable<StoredLine[]>): AsyncIterable<string> {
  for await (const rows of chunks) {
    let text = '';
    for (const row of rows) text += JSON.stringify(exportRecord(row)) + '\n';
    yield text;
  }
}

export async function exportRoutes(app: FastifyInstance, deps: ExportDeps): Promise<void> {
  app.get('/v1/export', { config: { permission: 'read' } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const email = oneParam(query, 'email');
    // Sending mail is a write: through a viewer session it needs the session's CSRF token.
    const principal = await deps.auth.principal(request, { changesState: email !== undefined });
    const { account } = principal;
    const { filter, size, prefer } = parseExportRequest(query, principal.scope);
    if (email !== undefined) {
      if (fromArchive(query)) throw errors.invalidParameter('An export from the archive (source=archive) is streamed, not e-mailed; omit "email".');
      if (!EMAIL.test(email.trim())) throw errors.invalidParameter(`Parameter "email" must be an e-mail address, got "${email}".`);
      if (!deps.canEmail) throw errors.invalidParameter('This server cannot send e-mail (LOGSTEAD_SMTP_URL is not set); omit "email" to stream the lines.');
      const subject = oneParam(query, 'emailSubject')?.trim().slice(0, 256);
      const id = deps.emailExports.start({ filter: { ...filter, account }, size, prefer, email: email.trim(), subject, keyId: principal.keyId, setBy: setterOf(principal) }, (error) =>
        request.log.error({ err: error }, 'e-mail export failed'),
      );
      return { status: 'ok', id, message: `The export is being prepared and will be e-mailed to ${email.trim()}.` };
    }
    if (fromArchive(query)) {
      const lines = await archivedLines(deps, account, principal.scope, query, { filter, prefer, limit: size, chronological: true });
      return reply.type('application/jsonl; charset=utf-8').send(lines.map((line) => JSON.stringify(exportRecord(line)) + '\n').join(''));
    }
    const chunks = deps.store.read({ ...filter, account }, { prefer, limit: size, chronological: true });
    // Streamed as it is read: the first lines leave before the query has finished.
    return reply.type('application/jsonl; charset=utf-8').send(Readable.from(jsonLines(chunks)));
  });

  // The signed link is the credential: whoever has it may download until it expires, or until the
  // key that asked for it is revoked or its organisation deactivated.
  app.get<{ Params: { id: string }; Querystring: { expires?: string; key?: string; issued?: string; signature?: string } }>('/v1/export/download/:id', { config: { permission: 'public' } }, async (request, reply) => {
    const { expires = '', key = '', issued = '', signature = '' } = request.query;
    const found = await deps.emailExports.resolveDownload({ id: request.params.id, expires: String(expires), key: String(key), issued: String(issued), signature: String(signature) });
    if (found === 'forbidden') return reply.code(403).send(errors.downloadForbidden().body);
    if (found === 'expired') return reply.code(410).send(errors.downloadExpired().body);
    if (found === 'missing') throw errors.notFound('This export no longer exists.');
    return reply
      .type('application/gzip')
      .header('content-disposition', `attachment; filename="logstead-export-${request.params.id.slice(0, 8)}.jsonl.gz"`)
      .send(found.content);
  });

  app.get('/v2/export', { config: { permission: 'read' } }, async (request) => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as Record<string, unknown>;
    if (query.email !== undefined) throw errors.invalidParameter('/v2/export does not send e-mail; use /v1/export.');
    const { filter, size, prefer } = parseExportRequest(query, scope);
    const params = fingerprint(account, query);
    const token = oneParam(query, 'pagination_id');
    const after = token ? decodeCursor(token, params) : undefined;

    // One line more than a page tells whether another page follows.
    const rows: StoredLine[] = [];
    if (fromArchive(query)) rows.push(...(await archivedLines(deps, account, scope, query, { filter, prefer, limit: size + 1, chronological: false }, after)));
    else {
      for await (const chunk of deps.store.read({ ...filter, account }, { prefer, limit: size + 1, after, chronological: false })) {
        rows.push(...chunk);
      }
    }
    const more = rows.length > size;
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    const paginationId = more && last ? encodeCursor(params, { ts: last.ts, id: last.id }) : null;
    if (prefer === 'tail') page.reverse(); // pages walk back in time; lines within one read forward
    return { lines: page.map(exportRecord), pagination_id: paginationId };
  });
}
