import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { presentedKeys } from '../http/credentials.js';
import { errors } from '../http/errors.js';
import { validate } from '../http/validation.js';
import { type MemberDirectory, type ServiceAuth, setterMember, setterOf } from '../http/service-auth.js';
import type { Accounts, KeySummary, KeyType } from './accounts.js';

const nameSchema = Joi.object({ name: Joi.string().trim().allow('').max(256).default('') });

function keyType(value: unknown, required: boolean): KeyType | undefined {
  if (value === undefined && !required) return undefined;
  if (value === 'ingestion' || value === 'service') return value;
  throw errors.invalidParameter('Parameter "type" must be "ingestion" or "service".');
}

/**
 * /v1/config/keys: an organisation's ingestion and service keys. Keys are stored hashed, so the key
 * itself appears once, in the response that creates it.
 */
export async function keyRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; accounts: Accounts; makers: MemberDirectory }): Promise<void> {
  const { auth, accounts } = deps;
  type Query = { type?: string };
  type Params = { id: string };

  /**
   * A key as the API shows it, with what it may do: its maker (null for a key of full rights),
   * and the role and scope it holds now, its maker's. An ingestion key only sends lines.
   */
  const present = async (key: KeySummary) => {
    const { madeBy, ...shown } = key;
    const maker = madeBy === null ? undefined : await deps.makers.access(madeBy);
    const rights = key.type === 'ingestion' ? { role: 'ingestion', scope: null } : madeBy === null ? { role: 'owner', scope: null } : { role: maker?.role ?? null, scope: maker?.scope ?? null };
    return { ...shown, maker: maker?.email ?? null, ...rights };
  };

  app.get<{ Querystring: Query }>('/v1/config/keys', { config: { permission: 'admin' } }, async (request) => {
    const account = await auth.account(request);
    return Promise.all((await accounts.listKeys(account, keyType(request.query.type, false))).map(present));
  });

  app.get<{ Params: Params }>('/v1/config/keys/:id', { config: { permission: 'admin' } }, async (request) => {
    const key = await accounts.getKey(await auth.account(request), request.params.id);
    if (!key) throw errors.notFound();
    return present(key);
  });

  app.post<{ Querystring: Query }>('/v1/config/keys', { config: { permission: 'admin', audit: 'key' } }, async (request) => {
    const principal = await auth.principal(request);
    const { account } = principal;
    const type = keyType(request.query.type ?? (request.body as { type?: string } | undefined)?.type, true)!;
    const { name } = validate<{ name: string }>(nameSchema, { name: (request.body as { name?: unknown } | undefined)?.name });
    // A key made by a member (or by a key a member made) is bounded by that member's rights now.
    const created = await accounts.createKey(account, type, name, setterMember(setterOf(principal)));
    return { ...(await present((await accounts.getKey(account, created.id))!)), key: created.key };
  });

  app.put<{ Params: Params }>('/v1/config/keys/:id', { config: { permission: 'admin', audit: 'key' } }, async (request) => {
    const account = await auth.account(request);
    const { name } = validate<{ name: string }>(nameSchema, request.body);
    const renamed = await accounts.renameKey(account, request.params.id, name);
    if (!renamed) throw errors.notFound();
    return present(renamed);
  });

  app.delete<{ Params: Params }>('/v1/config/keys/:id', { config: { permission: 'admin', audit: 'key' } }, async (request) => {
    const account = await auth.account(request);
    const presented = presentedKeys(request, { header: 'servicekey', query: 'servicekey' })[0];
    const ownKey = presented === undefined ? undefined : await accounts.keyIdFor(presented);
    const outcome = await accounts.revokeAccountKey(account, request.params.id, ownKey);
    if (outcome === 'missing') throw errors.notFound();
    if (outcome === 'last') {
      throw errors.conflict('This is the last service key of the organisation and the one authorising this request; create another first.');
    }
    return { deleted: true };
  });
}
