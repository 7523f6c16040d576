import type { FastifyRequest } from 'fastify';
import type { Accounts } from '../config/accounts.js';
import { presentedKeys } from './credentials.js';
import { errors } from './errors.js';

/** Read and configuration APIs take a service key: servicekey header or query, Basic, or Token. */
export function serviceAccount(accounts: Accounts, request: FastifyRequest): string {
  const keys = presentedKeys(request, { header: 'servicekey', query: 'servicekey' });
  const account = keys.length === 1 ? accounts.accountForKey(keys[0], 'service') : null;
  if (!account) throw errors.unauthorized();
  return account;
}
